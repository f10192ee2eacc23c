/**
 * Stops at once, in one line, on a Node.js too old for HubOS (it needs type stripping, node:sqlite
 * and module.registerHooks). Imported first by `hubos` and the CLI, and itself imports nothing, so
 * it runs before anything that an old Node could not load.
 */

/** The oldest Node.js HubOS runs on. */
export const MIN_NODE_VERSION = '22.18.0';

/**
 * The `engines.node` range of HubOS and of the packages it scaffolds: 22.18 on, except the Node.js
 * 23 releases before 23.6, which lack module.registerHooks or type stripping by default.
 */
export const NODE_ENGINES = '^22.18.0 || >=23.6.0';

/** Why this Node.js cannot run HubOS, or undefined when it can. */
export function unsupportedNodeMessage(version: string = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if ((major === 22 && minor >= 18) || (major === 23 && minor >= 6) || major >= 24) return undefined;
  const also = major === 23 ? ' (on Node.js 23, 23.6 or newer)' : '';
  return (
    `HubOS needs Node.js ${MIN_NODE_VERSION} or newer${also}, and this is Node.js ${version}. ` +
    'Install Node.js 24 (LTS) from https://nodejs.org or with a version manager (nvm install 24, fnm install 24), then run the command again.'
  );
}

const message = unsupportedNodeMessage();
if (message !== undefined) {
  // One line and no stack trace: nothing past this point could load on this Node anyway.
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
