/**
 * Paths served without an API key: liveness, the page, and the A2A agent cards a client needs to
 * discover. Anchored, so no route a plugin mounts can fall under them by its path's ending.
 */
const PUBLIC = [
  /^\/health$/,
  /^\/$/,
  /^\/ui\//,
  /^\/\.well-known\/agent-card\.json$/,
  /^\/a2a\/[^/]+\/\.well-known\/agent-card\.json$/,
];

/** Whether a path is served without an API key (plugins cannot mount there). */
export function isPublicPath(path: string): boolean {
  return PUBLIC.some((pattern) => pattern.test(path));
}
