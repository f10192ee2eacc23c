import type { Hono } from 'hono';
import { errorMessage } from '../../../core/index.ts';
import { getHubOSHooks, type HealthBody } from '../hooks.ts';
import type { HubOS } from '../hubos.ts';
import { openApiDocument } from '../kit/route-doc.ts';
import { isPublicPath } from '../public-paths.ts';

/** `GET /health` (always open) and `GET <api>/openapi.json`. */
export function systemRoutes(app: Hono, hubos: HubOS): void {
  hubos.document(
    {
      method: 'get',
      path: '/health',
      summary: 'Liveness and what is being served ("degraded", still 200, when a part is not well)',
      tags: ['system'],
    },
    {
      method: 'get',
      path: `${hubos.apiPrefix}/openapi.json`,
      summary: 'This OpenAPI document',
      tags: ['system'],
    },
  );
  app.get('/health', async (c) => {
    const body = await healthBody(hubos);
    return c.json(body, hubos.stopping ? 503 : 200);
  });
  app.get(`${hubos.apiPrefix}/openapi.json`, (c) =>
    c.json(
      openApiDocument(`${hubos.name} (HubOS)`, hubos.version, hubos.docs, hubos.authRequired, isPublicPath),
    ),
  );
}

/** The base body through the plugins' `health` taps; a failing tap makes it degraded, never a 500. */
async function healthBody(hubos: HubOS): Promise<HealthBody> {
  let body: HealthBody = {
    status: 'ok',
    name: hubos.name,
    agents: hubos.listAgents().length,
    runs: hubos.runs.running,
  };
  const kernel = hubos.options.kernel;
  if (kernel) {
    try {
      body = (await getHubOSHooks.owned(kernel).health.promise(body)) ?? body;
    } catch (error) {
      body = { ...body, status: 'degraded', error: errorMessage(error) };
    }
  }
  return hubos.stopping ? { ...body, status: 'stopping' } : body;
}
