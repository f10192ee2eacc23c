/**
 * `hubos/server`: the HTTP kit for plugins — what the built-in routes use, for routes of your own.
 * A plugin mounts a Hono sub-app through the hubos plugin's `routes` hook; HubOS's auth, rate limit,
 * body limit and error answers apply to it, and its described routes join `/api/openapi.json`.
 */
// The Hono HubOS runs on: a plugin that builds its sub-app with it needs no copy of its own.
export { Hono } from 'hono';
export { getHubOSHooks, type HealthBody, type HubOSHooks, type RoutesContext } from './hooks.ts';

import type { HubOS } from './hubos.ts';

export type { HubOS };

// Declared here so that a plugin importing only hubos/server gets `kernel.service('hubos')` typed.
declare module 'hubos' {
  interface HubosServices {
    /** The HubOS server of the kernel (from the hubos plugin's `ready` tap on): `kernel.service('hubos').serve()`. */
    hubos: HubOS;
  }
}

export type { RunListener, RunStartOptions, RunSurface } from '../../core/index.ts';
// The caller's identity is the kernel's (exported by `hubos` too); here beside the routes that read it.
export { canSee, keyPrincipal, type Principal, sessionKey } from '../../core/index.ts';
export type { AcceptedKey } from './api-keys.ts';
export { onClientGone } from './kit/client-gone.ts';
export { errorResponse, HttpError } from './kit/http-error.ts';
export type { HubOSEnv } from './kit/principal.ts';
export { readBody, readJson } from './kit/read-body.ts';
export { describeRoute, type RouteDescription, type RouteDoc, routeDocsOf } from './kit/route-doc.ts';
export { sseEventWriter, sseResponse } from './kit/sse.ts';
export type { AllowedHosts } from './middleware/host-check.ts';
export type { OriginPolicy } from './middleware/origin-check.ts';
export type { ApiKeyEntry } from './options.ts';
