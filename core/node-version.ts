/**
 * Which Node.js versions HubOS runs on. HubOS needs type stripping, node:sqlite and
 * module.registerHooks, and its dependencies ask for more: undici 8 for 22.19 or newer,
 * cosmiconfig 10 for 22.18+ or 24+ (no Node.js 23, which reached its end of life in 2025).
 * test/core/engines.test.ts checks that every production dependency admits this range.
 * Imports nothing: node-check.ts runs it before anything an old Node.js could not load.
 */

/** The oldest Node.js HubOS runs on. */
export const MIN_NODE_VERSION = '22.19.0';

/** The `engines.node` range of HubOS and of the packages it scaffolds: 22.19 on, then 24 on. */
export const NODE_ENGINES = '^22.19.0 || >=24.0.0';

/** Why this Node.js cannot run HubOS, or undefined when it can. */
export function unsupportedNodeMessage(version: string = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if ((major === 22 && minor >= 19) || major >= 24) return undefined;
  const also = major === 23 ? ' on the 22 line, or 24 or newer (Node.js 23 is not supported)' : '';
  return (
    `HubOS needs Node.js ${MIN_NODE_VERSION} or newer${also}, and this is Node.js ${version}. ` +
    'Install Node.js 24 (LTS) from https://nodejs.org or with a version manager (nvm install 24, fnm install 24), then run the command again.'
  );
}
