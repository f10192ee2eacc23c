import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { hubosDependency } from '../hubos-dependency.ts';
import type { CliIO } from '../io.ts';
import { UsageError } from '../io.ts';
import { pluginFiles } from '../templates/plugin.ts';
import { hubosVersion } from '../version.ts';

const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** `hubos create-plugin <name>`: scaffolds a tool plugin package that builds and tests green. */
export async function createPluginCommand(
  name: string | undefined,
  flags: { dir?: string },
  io: CliIO,
): Promise<number> {
  if (!name)
    throw new UsageError(
      'create-plugin needs a package name, e.g. "hubos create-plugin hubos-plugin-weather"',
      'create-plugin',
    );
  if (!PACKAGE_NAME.test(name) || name.length > 214) {
    io.stderr.write(
      `"${name}" is not a valid npm package name: use lowercase letters, digits, "-", "." or "_", optionally scoped (@scope/name).\n`,
    );
    return 1;
  }
  const target = resolve(io.cwd, flags.dir ?? name.replace(/^@[^/]+\//, ''));
  if (existsSync(target) && readdirSync(target).length > 0) {
    io.stderr.write(`${target} exists and is not empty: choose another --dir or remove it.\n`);
    return 1;
  }
  const dependency = hubosDependency(io.cwd, target);
  const files = pluginFiles(name, { range: `^${hubosVersion()}`, spec: dependency.spec });
  for (const [path, content] of Object.entries(files)) {
    const file = join(target, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  const from =
    dependency.from === 'registry'
      ? `\nIts tests install hubos ${dependency.spec} from npm; until hubos is published there, make a tarball in a\nHubOS checkout (npm run tarball) and set devDependencies.hubos to "file:/path/to/hubos-<version>.tgz".\n`
      : '';
  io.stdout.write(
    `Created ${name} in ${target}\nNext: cd ${relativeOrAbsolute(io.cwd, target)} && npm install && npm run build && npm test\n${from}`,
  );
  return 0;
}

function relativeOrAbsolute(cwd: string, target: string): string {
  const path = relative(cwd, target);
  return path && !path.startsWith('..') ? path : target;
}
