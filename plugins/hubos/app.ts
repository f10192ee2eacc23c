import type { Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import { a2aRoutes } from './a2a/index.ts';
import { aguiRoutes } from './agui/index.ts';
import { HUBOS_ERROR_CODES } from './errors.ts';
import type { HubOS } from './hubos.ts';
import { errorResponse } from './kit/http-error.ts';
import type { HubOSEnv } from './kit/principal.ts';
import { routeDocsOf } from './kit/route-doc.ts';
import { apiKeyAuth } from './middleware/auth.ts';
import { bodyTypeCheck } from './middleware/body-type-check.ts';
import { hostCheck } from './middleware/host-check.ts';
import { inSequence } from './middleware/in-sequence.ts';
import { originCheck } from './middleware/origin-check.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { isPublicPath } from './public-paths.ts';
import { agentRoutes } from './routes/agents.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { experimentRoutes } from './routes/experiments.ts';
import { ownerRoutes } from './routes/owners.ts';
import { runAgainRoutes } from './routes/run-again.ts';
import { runSessionRoutes } from './routes/run-session.ts';
import { runRoutes } from './routes/runs.ts';
import { systemRoutes } from './routes/system.ts';
import { usageRoutes } from './routes/usage.ts';
import { uiRoutes } from './ui/index.ts';

/**
 * Middleware in order (errors, headers, host check, CORS, origin check, body type check, shutdown,
 * auth, rate limit, body limit: the checks after CORS as one), then the routes.
 */
const A2A_RPC_PATH = /^\/a2a\/[^/]+\/?$/;

export async function buildApp(hubos: HubOS): Promise<void> {
  const { app, options } = hubos;
  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) =>
    c.json({ error: { code: 'NOT_FOUND', message: `no route ${c.req.method} ${c.req.path}` } }, 404),
  );
  // The page gets the full set of browser protections; JSON answers need only `nosniff`
  // (the full set costs a fifth of the run route's throughput for headers a browser ignores on JSON).
  // Images and audio a tool returns are shown from data: URLs (never scripts: SVG is not shown).
  const pageHeaders = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      mediaSrc: ["'self'", 'data:'],
    },
  });
  app.use('*', (c, next) => {
    if (c.req.path === '/' || c.req.path.startsWith('/ui/')) return pageHeaders(c, next);
    // Set before the route answers: headers added afterwards make Hono rebuild the Response and
    // @hono/node-server fall off its fast path.
    c.header('x-content-type-options', 'nosniff');
    return next();
  });
  // The checks below only pass a request on or refuse it: one middleware, run in sequence (CORS,
  // which adds headers after the route, stands between the host check and the others).
  const checks: MiddlewareHandler<HubOSEnv>[] = [hostCheck(hubos.allowedHosts)];
  // Before CORS: a rebound name gets no preflight answer either.
  if (options.cors) {
    app.use('*', inSequence(checks.splice(0)));
    app.use(
      '*',
      cors({
        origin: options.cors.origin,
        // The MCP endpoint's session and protocol headers, for browser MCP clients.
        allowHeaders: [
          'Authorization',
          'Content-Type',
          'Accept',
          'Mcp-Session-Id',
          'Mcp-Protocol-Version',
          'Last-Event-ID',
        ],
        exposeHeaders: ['Mcp-Session-Id'],
      }),
    );
  }
  checks.push(originCheck(hubos.originPolicy));
  // A2A's JSON-RPC posts are refused by the A2A route itself, in the shape A2A clients read.
  checks.push(bodyTypeCheck((c) => c.req.method === 'POST' && A2A_RPC_PATH.test(c.req.path)));
  checks.push((c, next) => {
    if (hubos.stopping && !hubos.passesWhileStopping(c)) {
      throw HUBOS_ERROR_CODES.create('SHUTTING_DOWN', 'the server is shutting down');
    }
    return next();
  });
  // `rateLimit: false` turns off the request limit only: wrong keys stay limited.
  const limits = options.rateLimit || {};
  const windowMs = limits.windowMs ?? 60_000;
  const trustProxy = new Set(options.trustProxy ?? []);
  // On a shared bus (Redis) the limits are one for all instances.
  const bus = options.bus ?? options.kernel?.bus;
  const warn = (message: string) => options.kernel?.logger.warn(message);
  checks.push(
    apiKeyAuth(hubos.apiKeys, {
      open: isPublicPath,
      failures: { windowMs, max: limits.maxAuthFailures ?? 20 },
      trustProxy,
      bus,
      warn,
    }),
  );
  if (options.rateLimit !== false)
    checks.push(rateLimit({ windowMs, max: limits.max ?? 600, trustProxy, bus, warn }));
  const maxSize = options.bodyLimit ?? 1024 * 1024;
  const tooLarge = () =>
    HUBOS_ERROR_CODES.create('PAYLOAD_TOO_LARGE', `the request body is larger than ${maxSize} bytes`);
  // Hono's bodyLimit re-wraps every body in a counting stream (a quarter of the throughput); a
  // declared Content-Length is checked directly, and only bodies without one are counted as they stream.
  const countChunked = bodyLimit({
    maxSize,
    onError: () => {
      throw tooLarge();
    },
  });
  checks.push((c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined) {
      if (Number(length) > maxSize) throw tooLarge();
      return next();
    }
    // No declared length (chunked, or a Request built in process): counted as it is read, which costs
    // the node adapter a full Request; a GET or HEAD gets no body from it, so there is none to count.
    return c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : countChunked(c, next);
  });
  app.use('*', inSequence(checks));
  // The server's own routes are sub-apps, as a plugin's are: described with describeRoute, documented
  // with the paths they are mounted at. (Not through `hubos.mount`: /health is served without a key.)
  const mountOwn = (path: string, routes: Hono<HubOSEnv>) => {
    app.route(path, routes);
    hubos.document(...routeDocsOf(routes, path));
  };
  mountOwn('/', systemRoutes(hubos));
  mountOwn(hubos.apiPrefix, agentRoutes(hubos));
  // Before the run routes: `/runs/models` is not a run's id.
  mountOwn(hubos.apiPrefix, runAgainRoutes(hubos));
  mountOwn(hubos.apiPrefix, runRoutes(hubos));
  mountOwn(hubos.apiPrefix, runSessionRoutes(hubos));
  mountOwn(hubos.apiPrefix, usageRoutes(hubos));
  mountOwn(hubos.apiPrefix, experimentRoutes(hubos));
  mountOwn(hubos.apiPrefix, ownerRoutes(hubos));
  approvalRoutes(app, hubos);
  await a2aRoutes(app, hubos);
  await aguiRoutes(app, hubos);
  await uiRoutes(app, hubos);
}
