import type { Hono } from 'hono';
import { AsyncSeriesHook } from 'tapable';
import { createHooksAccessor, type TapMeta } from '../../core/index.ts';
import type { HubOS } from './hubos.ts';

export interface RoutesContext {
  /** The Hono app: add routes with `app.get(...)`, `app.route(...)`. Auth and limits already apply. */
  app: Hono;
  hubos: HubOS;
}

/**
 * HubOS's own hooks: `routes` (add HTTP routes), `listening` (the server is up) and `beforeStop`
 * (the server is about to drain and stop). Reached with `getHubOSHooks(kernel)`.
 */
export const getHubOSHooks = createHooksAccessor('hubos', () => ({
  routes: new AsyncSeriesHook<[RoutesContext], TapMeta>(['context']),
  listening: new AsyncSeriesHook<[{ url: string; host: string; port: number; hubos: HubOS }], TapMeta>([
    'context',
  ]),
  beforeStop: new AsyncSeriesHook<[{ reason: string; hubos: HubOS }], TapMeta>(['context']),
}));

export type HubOSHooks = ReturnType<typeof getHubOSHooks>;
