import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Scratch and runtime folders: where host Unix sockets (docker, databases, session buses) and other users' temp files live. */
const RUNTIME = ['/tmp', '/var/tmp', '/run', '/var/run', '/dev/shm'];

/** Folders the system runs from: never hidden, even when the server's cwd or home is one of them. */
const SYSTEM = new Set(
  ['/', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/var', '/opt'].concat([
    '/nix',
    '/snap',
    '/proc',
    '/sys',
    '/dev',
    '/boot',
    '/home',
    '/srv',
    '/mnt',
    '/media',
  ]),
);

/** What a sandboxed command sees of the host besides the read-only root. */
export interface HostView {
  /** Host folders covered by an empty tmpfs, parents first. */
  hide: string[];
  /** Host paths under a hidden folder bound back read-only. */
  readOnly: string[];
}

/**
 * Hides the runtime folders (no host sockets, no shared /tmp) and the server's own folders — its
 * home (keys, tokens, shell history), its cwd and install folder (config, `.env`, the store) —
 * except where the workspace or the shell lives. The workspace, bound after, stays visible
 * inside them. `expose` paths, and with network the resolver config, are bound back read-only.
 */
export function hostView(options: {
  workspace?: string | undefined;
  shell: string;
  network?: boolean | undefined;
  expose?: readonly string[] | undefined;
  hide?: readonly string[] | undefined;
}): HostView {
  const workspace = options.workspace && real(options.workspace);
  const needed = [options.shell, '/bin/bash'].map(real).filter((path) => path !== undefined);
  const candidates = [
    ...RUNTIME,
    process.env.XDG_RUNTIME_DIR,
    homedir(),
    process.cwd(),
    installRoot(),
    ...(options.hide ?? []),
  ];
  const hide: string[] = [];
  for (const path of sorted(candidates.map(real))) {
    if (SYSTEM.has(path) || hide.some((parent) => within(path, parent))) continue;
    // Never hide the workspace itself or what the command runs with. A workspace inside a hidden
    // folder is fine: it is bound back on top.
    if (workspace && within(path, workspace)) continue;
    if (needed.some((file) => within(file, path))) continue;
    hide.push(path);
  }
  const wanted = [...(options.expose ?? []), ...(options.network ? ['/etc/resolv.conf'] : [])];
  const readOnly = sorted(wanted.map(real)).filter(
    (path) => hide.some((parent) => within(path, parent)) && !(workspace && within(path, workspace)),
  );
  return { hide, readOnly };
}

/** Whether `path` is `folder` or inside it. */
function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === sep ? sep : `${folder}${sep}`);
}

function real(path: string | undefined): string | undefined {
  if (!path?.startsWith(sep)) return undefined;
  try {
    return realpathSync(path);
  } catch {
    return undefined; // absent here: nothing to hide or show
  }
}

function sorted(paths: (string | undefined)[]): string[] {
  return [...new Set(paths.filter((path) => path !== undefined))].sort();
}

/** HubOS's own folder: where its package.json is, upwards from this file (in source or in dist/). */
function installRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return undefined;
}
