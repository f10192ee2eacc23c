import type { Hono } from 'hono';
import type { HubOS } from '../hubos.ts';
import { openApiDocument } from '../route-docs.ts';

/** `GET /health` (always open) and `GET <api>/openapi.json`. */
export function systemRoutes(app: Hono, hubos: HubOS): void {
  hubos.document(
    { method: 'get', path: '/health', summary: 'Liveness and what is being served', tags: ['system'] },
    {
      method: 'get',
      path: `${hubos.apiPrefix}/openapi.json`,
      summary: 'This OpenAPI document',
      tags: ['system'],
    },
  );
  app.get('/health', (c) =>
    c.json(
      {
        status: hubos.stopping ? 'stopping' : 'ok',
        name: hubos.name,
        agents: hubos.listAgents().length,
        runs: hubos.runs.running,
      },
      hubos.stopping ? 503 : 200,
    ),
  );
  app.get(`${hubos.apiPrefix}/openapi.json`, (c) =>
    c.json(openApiDocument(`${hubos.name} (HubOS)`, hubos.version, hubos.docs, hubos.authRequired)),
  );
}
