/**
 * The repo's `postprepare`: npm runs it after `npm ci` or `npm install` in the repo, with
 * node_modules/.bin first on PATH, so on the Node.js of the `node` dev dependency. (Not a
 * `preinstall` or `prepare`: npm would then ask every app that installs the hubos tarball to
 * approve them as install scripts.) npm itself may run on an older Node.js: the repo's .npmrc then keeps npm's
 * per-package engine warnings quiet, and this line says what happens instead. On a Node.js that
 * `engines` admits it prints nothing.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';

const npmNode = /\bnode\/v(\S+)/.exec(process.env.npm_config_user_agent ?? '')?.[1];
const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};
if (npmNode && !semver.satisfies(npmNode, engines.node)) {
  process.stdout.write(
    `npm runs on Node.js ${npmNode}, older than HubOS's ${engines.node}: the repo's scripts and tools (npm test, npm run build, npx vitest) run on Node.js ${process.versions.node} from the "node" dev dependency.\n`,
  );
}
