import type { Principal } from '../../../core/index.ts';

/** The Hono environment of HubOS routes: `new Hono<HubOSEnv>()` types `c.get('principal')`. */
export interface HubOSEnv {
  Variables: { principal: Principal };
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The caller, set by HubOS's auth before any route runs. */
    principal: Principal;
  }
}
