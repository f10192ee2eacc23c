import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CONFIG_FILES, MIN_NODE_VERSION } from '../../core/index.ts';
import { defaultModelRef } from '../../plugins/index.ts';
import { hubosDependency } from '../hubos-dependency.ts';
import type { CliIO } from '../io.ts';
import { appFiles } from '../templates/app.ts';

/**
 * `hubos init`: turns the folder into a working app: a config with an agent, a local tool plugin
 * it uses and a test of it, and a package.json (made or completed) that runs them. Never
 * overwrites a file without --force; an existing package.json keeps everything it has.
 */
export async function initCommand(flags: { force?: boolean }, io: CliIO): Promise<number> {
  const files = appFiles();
  const existing = [...new Set([...CONFIG_FILES, ...Object.keys(files)])].filter((path) =>
    existsSync(join(io.cwd, path)),
  );
  if (existing.length > 0 && !flags.force) {
    io.stderr.write(
      `${existing.map((path) => join(io.cwd, path)).join(', ')} already exist${existing.length === 1 ? 's' : ''}: remove ${existing.length === 1 ? 'it' : 'them'} or run "hubos init --force" to overwrite.\n`,
    );
    return 1;
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(io.cwd, path)), { recursive: true });
    await writeFile(join(io.cwd, path), content);
  }
  const pkg = await completePackageJson(io.cwd);
  const extras = await writeIfMissing(io.cwd, {
    // npm then refuses to install on a Node.js older than `engines` says, naming both versions.
    '.npmrc': 'engine-strict=true\n',
    '.gitignore': 'node_modules/\n.hubos/\n',
  });
  io.stdout.write(summary(io.cwd, pkg, extras));
  return 0;
}

interface PackageChanges {
  created: boolean;
  changed: string[];
  /** Set when hubos had to be added: `npm install` comes first. */
  addedHubos?: string;
  keptCommonJs: boolean;
}

async function completePackageJson(cwd: string): Promise<PackageChanges> {
  const file = join(cwd, 'package.json');
  const created = !existsSync(file);
  const pkg: Record<string, unknown> = created
    ? { name: packageName(basename(cwd)), version: '0.1.0', private: true }
    : (JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>);
  const changed: string[] = [];
  // "type": "module" makes every .js file of the app an ES module: set it unless the app already
  // has CommonJS files of its own (HubOS loads the config as written either way).
  const keptCommonJs = pkg.type === 'commonjs' && (await hasOwnScripts(cwd));
  if (pkg.type !== 'module' && !keptCommonJs) {
    pkg.type = 'module';
    changed.push('"type": "module"');
  }
  const engines = (pkg.engines ?? {}) as Record<string, string>;
  if (!engines.node) {
    pkg.engines = { ...engines, node: `>=${MIN_NODE_VERSION.replace(/\.0$/, '')}` };
    changed.push('engines');
  }
  const scripts = (pkg.scripts ?? {}) as Record<string, string>;
  const wanted = { start: 'hubos serve', test: 'node --test "test/**/*.test.ts"' };
  for (const [name, command] of Object.entries(wanted)) {
    // npm init's placeholder test script only says there is none.
    if (!scripts[name] || /no test specified/.test(scripts[name]!)) {
      scripts[name] = command;
      changed.push(`scripts.${name}`);
    }
  }
  pkg.scripts = scripts;
  const dependencies = (pkg.dependencies ?? {}) as Record<string, string>;
  const devDependencies = (pkg.devDependencies ?? {}) as Record<string, string>;
  let addedHubos: string | undefined;
  if (!dependencies.hubos && !devDependencies.hubos) {
    addedHubos = hubosDependency(cwd, cwd).spec;
    pkg.dependencies = { ...dependencies, hubos: addedHubos };
    changed.push('dependencies.hubos');
  }
  await writeFile(file, `${JSON.stringify(pkg, null, 2)}\n`);
  return { created, changed, ...(addedHubos ? { addedHubos } : {}), keptCommonJs };
}

/** Whether the folder has .js/.ts files of its own, which a change of "type" would reinterpret. */
async function hasOwnScripts(cwd: string): Promise<boolean> {
  const ours = new Set(['agent.config.ts']);
  return (await readdir(cwd)).some((name) => /\.(js|ts)$/.test(name) && !ours.has(name));
}

async function writeIfMissing(cwd: string, files: Record<string, string>): Promise<string[]> {
  const written: string[] = [];
  for (const [path, content] of Object.entries(files)) {
    if (existsSync(join(cwd, path))) continue;
    await writeFile(join(cwd, path), content);
    written.push(path);
  }
  return written;
}

function summary(cwd: string, pkg: PackageChanges, extras: string[]): string {
  const model = defaultModelRef();
  const modelLine =
    model === 'offline'
      ? 'No API key is set, so the agent uses the offline demo model: it calls a tool when a message is\n"/<tool> <json>". Set OPENAI_API_KEY or ANTHROPIC_API_KEY (or "model" in agent.config.ts) for a real one.'
      : `The agent uses ${model}, since its API key is set in the environment.`;
  const packageLine = pkg.created
    ? 'package.json        made: "type": "module", engines, scripts, hubos'
    : `package.json        ${pkg.changed.length > 0 ? `added ${pkg.changed.join(', ')}` : 'already had all it needs'}`;
  const steps = [
    ...(pkg.addedHubos
      ? [`npm install                                   # installs hubos (${pkg.addedHubos})`]
      : []),
    `npx hubos run assistant '/dice_roll {"count": 2}'`,
    'npx hubos serve                               # then chat at http://127.0.0.1:3000/',
    "npm test                                      # the tool's test",
  ];
  return [
    `Created a HubOS app in ${cwd}:`,
    '  agent.config.ts     the agent "assistant", which may use dice_roll',
    '  plugins/dice.ts     a local tool plugin: dice_roll, with checked options',
    '  test/dice.test.ts   its test (node --test)',
    `  ${packageLine}`,
    ...extras.map(
      (path) =>
        `  ${path.padEnd(20)}${path === '.npmrc' ? 'engine-strict: npm refuses a Node.js too old for HubOS' : 'node_modules/ and .hubos/ (the local database)'}`,
    ),
    ...(pkg.keptCommonJs
      ? ['"type" stays "commonjs": the folder has scripts of its own. HubOS loads the config as written.']
      : []),
    '',
    modelLine,
    '',
    'Next:',
    ...steps.map((step) => `  ${step}`),
    ...(pkg.addedHubos && !pkg.addedHubos.startsWith('file:')
      ? [
          '',
          `hubos is not on the npm registry yet: if "npm install" cannot find it, make a tarball in a HubOS checkout`,
          '(npm run tarball) and install that: npm install /path/to/hubos-<version>.tgz',
        ]
      : []),
    '',
  ].join('\n');
}

/** The folder's name as an npm package name. */
function packageName(folder: string): string {
  return (
    folder
      .toLowerCase()
      .replace(/[^a-z0-9._~-]+/g, '-')
      .replace(/^[-._]+|-+$/g, '') || 'hubos-app'
  );
}
