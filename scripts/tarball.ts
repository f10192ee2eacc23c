/**
 * `npm run tarball`: packs HubOS (built by prepack) into hubos-<version>.tgz at the repo's root,
 * and prints how an app installs it. HubOS is installed this way until it is on the npm registry.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packed = JSON.parse(
  execFileSync('npm', ['pack', '--json', '--pack-destination', root], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
) as { filename: string }[];
const tarball = join(root, packed[0]!.filename);
process.stdout.write(`
Packed ${tarball}
In an app folder (any folder; npm init -y makes one):
  npm install ${tarball}
  npx hubos init
`);
