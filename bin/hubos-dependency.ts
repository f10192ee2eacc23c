import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { hubosPackageRoot, hubosVersion } from '../core/version.ts';

/**
 * How a package.json written by `hubos init` or `hubos create-plugin` depends on hubos: the way
 * hubos reached this app. HubOS is installed from a packed tarball (`npm run tarball` in its repo)
 * until it is on the registry, so a `file:` spec is carried over, re-based to the new folder.
 */
export interface HubosDependency {
  /** What goes in `dependencies`/`devDependencies`, e.g. `file:../hubos-0.1.0.tgz` or `^0.1.0`. */
  spec: string;
  /** Where it was found: the app's package.json, the installed copy's lockfile, a tarball beside the sources, or none (a registry range). */
  from: 'app' | 'install' | 'tarball' | 'registry';
}

export function hubosDependency(cwd: string, target: string): HubosDependency {
  const version = hubosVersion();
  const fromApp = appSpec(cwd);
  if (fromApp) return { spec: rebase(fromApp.spec, fromApp.dir, target), from: 'app' };
  const fromInstall = installSpec();
  if (fromInstall) return { spec: rebase(fromInstall.spec, fromInstall.dir, target), from: 'install' };
  const tarball = join(hubosPackageRoot(), `hubos-${version}.tgz`);
  if (existsSync(tarball)) return { spec: `file:${relativePath(target, tarball)}`, from: 'tarball' };
  return { spec: `^${version}`, from: 'registry' };
}

/** The hubos spec of the nearest package.json (from `cwd` upwards) that depends on hubos. */
function appSpec(cwd: string): { spec: string; dir: string } | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const pkg = readJson(join(dir, 'package.json'));
    const spec = pkg?.dependencies?.hubos ?? pkg?.devDependencies?.hubos;
    // A workspace: spec means nothing in a folder outside that workspace: look further.
    if (typeof spec === 'string' && pkg?.name !== 'hubos' && !spec.startsWith('workspace:'))
      return { spec, dir };
    if (dirname(dir) === dir) return undefined;
  }
}

/** What npm installed the running hubos from, when it sits in an app's node_modules. */
function installSpec(): { spec: string; dir: string } | undefined {
  const root = hubosPackageRoot();
  if (basename(root) !== 'hubos' || basename(dirname(root)) !== 'node_modules') return undefined;
  const app = dirname(dirname(root));
  const lock =
    readJson(join(app, 'node_modules/.package-lock.json')) ?? readJson(join(app, 'package-lock.json'));
  const resolved = lock?.packages?.['node_modules/hubos']?.resolved;
  return typeof resolved === 'string' && resolved.startsWith('file:')
    ? { spec: resolved, dir: app }
    : undefined;
}

/**
 * A local spec (`file:`, `link:`, or a bare path: `./x.tgz`, `../x`, `/x`, `~/x`) written relative
 * to `from`, rewritten as `file:` relative to `to`; registry ranges, tags and URLs as they are.
 */
function rebase(spec: string, from: string, to: string): string {
  const prefixed = /^(?:file|link):(.*)$/.exec(spec);
  const path = prefixed ? prefixed[1]! : /^(?:\.{1,2}\/|\/|~\/)/.test(spec) ? spec : undefined;
  if (path === undefined) return spec;
  const expanded = path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
  return `file:${relativePath(to, isAbsolute(expanded) ? expanded : resolve(from, expanded))}`;
}

function relativePath(from: string, to: string): string {
  const path = relative(from, to).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

interface PackageJsonish {
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  packages?: Record<string, { resolved?: string }>;
}

function readJson(file: string): PackageJsonish | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageJsonish;
  } catch {
    return undefined;
  }
}
