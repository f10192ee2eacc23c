import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CONFIG_FILES, NODE_ENGINES } from '../../core/index.ts';
import { hasModuleSyntax } from '../../core/internal.ts';
import { defaultModelRef } from '../../plugins/index.ts';
import { hubosDependency } from '../hubos-dependency.ts';
import type { CliIO } from '../io.ts';
import { APP_DEV_DEPENDENCIES, APP_TSCONFIG, appFiles } from '../templates/app.ts';

/**
 * `hubos init`: turns the folder into a working app: a config with an agent, a local tool plugin
 * it uses and a test of it, and a package.json (made or completed) that runs them. Everything is
 * checked before anything is written; no file is overwritten without --force, and an existing
 * package.json keeps everything it has.
 */
export async function initCommand(flags: { force?: boolean }, io: CliIO): Promise<number> {
  const pkgFile = join(io.cwd, 'package.json');
  const pkg = existsSync(pkgFile) ? readPackageJson(pkgFile) : undefined;
  if (typeof pkg === 'string') {
    io.stderr.write(`${pkg}\n`);
    return 1;
  }
  // "type": "module" would turn the app's own CommonJS scripts into ES modules and break them: an
  // app that has some stays as it is, and gets .mts files (ES modules whatever package.json says).
  const commonJs = pkg !== undefined && pkg.type !== 'module' ? commonJsScript(io.cwd) : undefined;
  const files = appFiles(commonJs ? '.mts' : '.ts');
  const problem = blockers(io.cwd, Object.keys(files), flags.force === true);
  if (problem) {
    io.stderr.write(`${problem}\n`);
    return 1;
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(io.cwd, path)), { recursive: true });
    await writeFile(join(io.cwd, path), content);
  }
  const changes = await completePackageJson(io.cwd, pkg, commonJs ? '.mts' : '.ts');
  const extras = await writeIfMissing(io.cwd, {
    // npm then refuses to install on a Node.js older than `engines` says, naming both versions.
    '.npmrc': 'engine-strict=true\n',
    '.gitignore': 'node_modules/\n.hubos/\nworkspace/\n',
    'tsconfig.json': APP_TSCONFIG,
  });
  io.stdout.write(summary(io.cwd, Object.keys(files), changes, extras, commonJs));
  return 0;
}

type PackageJson = Record<string, unknown>;

/** The package.json as an object, or what is wrong with it. */
function readPackageJson(file: string): PackageJson | string {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return `${file} is not valid JSON (${(error as Error).message}): fix it, or remove it and run "hubos init" again. Nothing was written.`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `${file} must hold a JSON object, not ${Array.isArray(value) ? 'an array' : String(value === null ? 'null' : typeof value)}. Nothing was written.`;
  }
  for (const key of ['scripts', 'dependencies', 'devDependencies', 'engines']) {
    const field = (value as PackageJson)[key];
    if (field !== undefined && (typeof field !== 'object' || field === null || Array.isArray(field))) {
      return `${file}: "${key}" must be an object. Nothing was written.`;
    }
  }
  return value as PackageJson;
}

/** Why the files cannot be written (one exists, or a folder they go in is a file), if so. */
function blockers(cwd: string, paths: string[], force: boolean): string | undefined {
  for (const folder of new Set(paths.map((path) => dirname(path)).filter((dir) => dir !== '.'))) {
    const at = join(cwd, folder);
    if (existsSync(at) && !statSync(at).isDirectory()) {
      return `${at} is a file, and hubos init writes into a folder of that name: move it away. Nothing was written.`;
    }
  }
  if (force) return undefined;
  const existing = [...new Set([...CONFIG_FILES, ...paths])].filter((path) => existsSync(join(cwd, path)));
  if (existing.length === 0) return undefined;
  const them = existing.length === 1 ? 'it' : 'them';
  return `${existing.map((path) => join(cwd, path)).join(', ')} already exist${existing.length === 1 ? 's' : ''}: remove ${them} or run "hubos init --force" to overwrite. Nothing was written.`;
}

/** A .js file of the app's own written as CommonJS (searched outside node_modules and dot-folders). */
function commonJsScript(cwd: string): string | undefined {
  const queue = [cwd];
  let seen = 0;
  while (queue.length > 0 && seen < 2000) {
    const dir = queue.shift()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) queue.push(path);
      else if (/\.js$/.test(entry.name) && ++seen && !hasModuleSyntax(readFileSync(path, 'utf8')))
        return path;
    }
  }
  return undefined;
}

interface PackageChanges {
  created: boolean;
  changed: string[];
  /** Set when hubos had to be added. */
  addedHubos?: string;
  /** A dependency was added: `npm install` comes first. */
  needsInstall: boolean;
}

async function completePackageJson(
  cwd: string,
  existing: PackageJson | undefined,
  ext: '.ts' | '.mts',
): Promise<PackageChanges> {
  const pkg: PackageJson = existing ?? { name: packageName(basename(cwd)), version: '0.1.0', private: true };
  const changed: string[] = [];
  if (ext === '.ts' && pkg.type !== 'module') {
    pkg.type = 'module';
    changed.push('"type": "module"');
  }
  const engines = (pkg.engines ?? {}) as Record<string, string>;
  if (!engines.node) {
    pkg.engines = { ...engines, node: NODE_ENGINES };
    changed.push('engines');
  }
  const scripts = (pkg.scripts ?? {}) as Record<string, string>;
  // npm init's placeholder test script only says there is none.
  const ownTest = scripts.test !== undefined && !/no test specified/.test(scripts.test);
  const wanted: Record<string, string> = {
    start: 'hubos serve',
    // The config is loaded first: on a Node.js too old for HubOS, that says so in one line (the
    // versions, how to upgrade) instead of node --test not finding the files. Not added before
    // an app's own test script.
    ...(ownTest ? {} : { pretest: 'hubos validate', test: `node --test "test/**/*.test${ext}"` }),
    typecheck: 'tsc',
  };
  for (const [name, command] of Object.entries(wanted)) {
    if (!scripts[name] || (name === 'test' && !ownTest)) {
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
  const addedDev = Object.entries(APP_DEV_DEPENDENCIES).filter(
    ([name]) => !dependencies[name] && !devDependencies[name],
  );
  if (addedDev.length > 0) {
    pkg.devDependencies = { ...devDependencies, ...Object.fromEntries(addedDev) };
    changed.push(...addedDev.map(([name]) => `devDependencies.${name}`));
  }
  await writeFile(join(cwd, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return {
    created: existing === undefined,
    changed,
    needsInstall: addedHubos !== undefined || addedDev.length > 0,
    ...(addedHubos ? { addedHubos } : {}),
  };
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

function summary(
  cwd: string,
  files: string[],
  pkg: PackageChanges,
  extras: string[],
  commonJs: string | undefined,
): string {
  const [config, plugin, test] = files as [string, string, string];
  const model = defaultModelRef();
  const modelLine =
    model === 'offline'
      ? 'No API key is set, so the agent uses the offline demo model: it calls a tool when a message is\n"/<tool> <json>". Set OPENAI_API_KEY or ANTHROPIC_API_KEY (or "model" in the config) for a real one.'
      : `The agent uses ${model}, since its API key is set in the environment.`;
  const packageLine = pkg.created
    ? 'made: "type": "module", engines, scripts, hubos, TypeScript'
    : pkg.changed.length > 0
      ? `added ${pkg.changed.join(', ')}`
      : 'already had all it needs';
  const row = (path: string, what: string) => `  ${path.padEnd(20)}${what}`;
  const steps = [
    ...(pkg.needsInstall
      ? [
          `npm install                                   # installs ${pkg.addedHubos ? `hubos (${pkg.addedHubos}) and ` : ''}TypeScript`,
        ]
      : []),
    `npx hubos run assistant '/dice_roll {"count": 2}'`,
    'npx hubos serve                               # then chat at http://127.0.0.1:3000/',
    "npm test                                      # the config's check, then the tool's test",
    'npm run typecheck                             # tsc, with tsconfig.json',
  ];
  return [
    `Created a HubOS app in ${cwd}:`,
    row(config, 'the agent "assistant", which may use dice_roll'),
    row(plugin, 'a local tool plugin: dice_roll, with checked options'),
    row(test, 'its test (node --test)'),
    row('package.json', packageLine),
    ...extras.map((path) => row(path, EXTRA_FILES[path] ?? '')),
    ...(commonJs
      ? [
          `"type" stays as it is: ${commonJs} is CommonJS, so the app's files are .mts (ES modules either way).`,
        ]
      : []),
    '',
    modelLine,
    '',
    'Next:',
    ...steps.map((step) => `  ${step}`),
    ...(pkg.addedHubos && !pkg.addedHubos.startsWith('file:')
      ? [
          '',
          'hubos is not on the npm registry yet: if "npm install" cannot find it, make a tarball in a HubOS checkout',
          '(npm run tarball) and install that: npm install /path/to/hubos-<version>.tgz',
        ]
      : []),
    '',
  ].join('\n');
}

/** What each file written only when missing is for, as the summary says it. */
const EXTRA_FILES: Record<string, string> = {
  '.npmrc': 'engine-strict: npm refuses a Node.js too old for HubOS',
  '.gitignore': 'node_modules/, .hubos/ (the local database) and workspace/ (where tools act)',
  'tsconfig.json': 'for the editor and npm run typecheck: what Node.js runs, checked',
};

/** The folder's name as an npm package name (accents dropped: "Été" is "ete"). */
function packageName(folder: string): string {
  return (
    folder
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9._~-]+/g, '-')
      .replace(/^[-._]+|-+$/g, '') || 'hubos-app'
  );
}
