/**
 * The repo's `postprepare`: npm runs it after `npm ci` or `npm install` in the repo, with
 * node_modules/.bin first on PATH, so on the Node.js of the `node` dev dependency. (Not a
 * `preinstall` or `prepare`: npm would then ask every app that installs the hubos tarball to
 * approve them as install scripts.) npm itself may run on a Node.js HubOS does not: the repo's
 * .npmrc then keeps npm's per-package engine warnings quiet, and this line says what happens
 * instead. On a Node.js that `engines` admits it prints nothing. It imports nothing but
 * node-version.ts, so it runs after an install without dev dependencies too.
 */
import { NODE_ENGINES, unsupportedNodeMessage } from '../core/node-version.ts';

const npmNode = /\bnode\/v(\S+)/.exec(process.env.npm_config_user_agent ?? '')?.[1];
if (npmNode && unsupportedNodeMessage(npmNode)) {
  const scripts = unsupportedNodeMessage()
    ? 'need Node.js 24: install it, then run them'
    : `run on Node.js ${process.versions.node}, from the "node" dev dependency`;
  process.stdout.write(
    `npm runs on Node.js ${npmNode}, which HubOS does not run on (${NODE_ENGINES}): the repo's scripts and tools (npm test, npm run build, npx vitest) ${scripts}.\n`,
  );
}
