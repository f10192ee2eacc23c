import type { Hono } from 'hono';
import { AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import { createHooksAccessor, type TapMeta } from '../../core/index.ts';
import type { HubOS } from './hubos.ts';
import type { HubOSEnv } from './kit/principal.ts';

export interface RoutesContext {
  /**
   * Mounts a plugin's own Hono sub-app at `path` (under `api` for REST routes): auth, rate and body
   * limits and error answers apply to it as to the built-in routes, and the routes it documents with
   * `describeRoute` join the OpenAPI document. Add its routes before mounting it.
   */
  mount(path: string, app: Hono<HubOSEnv>): void;
  /** The REST prefix (`server.apiPrefix`, default `/api`). */
  api: string;
  /** The root app, for what a sub-app cannot express; prefer `mount`. */
  app: Hono;
  hubos: HubOS;
}

/**
 * The `GET /health` body. Plugins add their part under their own key and may set `status` to
 * `'degraded'` (still 200) when something they run is not well; `'stopping'` (503) always wins.
 */
export interface HealthBody {
  status: 'ok' | 'degraded' | 'stopping';
  name: string;
  agents: number;
  runs: number;
  [key: string]: unknown;
}

/**
 * HubOS's own hooks: `routes` (add HTTP routes), `listening` (the server is up), `beforeStop`
 * (the server is about to drain and stop) and `health` (a waterfall over the `/health` body).
 * Reached with `getHubOSHooks(kernel)`.
 */
export const getHubOSHooks = createHooksAccessor('hubos', () => ({
  routes: new AsyncSeriesHook<[RoutesContext], TapMeta>(['context']),
  listening: new AsyncSeriesHook<[{ url: string; host: string; port: number; hubos: HubOS }], TapMeta>([
    'context',
  ]),
  beforeStop: new AsyncSeriesHook<[{ reason: string; hubos: HubOS }], TapMeta>(['context']),
  health: new AsyncSeriesWaterfallHook<[HealthBody], HealthBody, TapMeta>(['body']),
}));

export type HubOSHooks = ReturnType<typeof getHubOSHooks>;
