import { Hono } from 'hono';
import { errorMessage } from '../../../core/index.ts';
import { getHubOSHooks, type HealthBody } from '../hooks.ts';
import type { HubOS } from '../hubos.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { describeRoute, openApiDocument } from '../kit/route-doc.ts';
import { isPublicPath } from '../public-paths.ts';

/**
 * `GET /health` (always open) and `GET <api>/openapi.json`, mounted at the root: the document is
 * built at each request, so it lists the routes plugins mounted after these.
 */
export function systemRoutes(hubos: HubOS): Hono<HubOSEnv> {
  const tags = ['system'];
  return new Hono<HubOSEnv>()
    .get(
      '/health',
      describeRoute({
        summary: 'Liveness and what is being served ("degraded", still 200, when a part is not well)',
        tags,
        responses: { 200: 'Serving', 503: 'Stopping: the same body, status "stopping"' },
      }),
      async (c) => {
        const body = await healthBody(hubos);
        return c.json(body, hubos.stopping ? 503 : 200);
      },
    )
    .get(
      `${hubos.apiPrefix.replace(/\/$/, '')}/openapi.json`,
      describeRoute({ summary: 'This OpenAPI document', tags }),
      (c) =>
        c.json(
          openApiDocument(
            `${hubos.name} (HubOS)`,
            hubos.version,
            hubos.docs,
            hubos.authRequired,
            isPublicPath,
          ),
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
