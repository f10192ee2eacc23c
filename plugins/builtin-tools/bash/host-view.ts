import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_USER, mustDropRoot } from './sandbox-user.ts';

/**
 * What a command runs with: the system's programs and libraries. On merged-/usr systems the
 * top-level ones are symbolic links into /usr, and are made again as links.
 */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/nix/store'];

/**
 * The few files of /etc that ordinary commands read: users and groups (`id`, `ls -l`), name
 * resolution, the dynamic linker's cache, time zones, TLS certificates, `update-alternatives` links
 * (`editor`, `java`), shell start-up files. The rest of /etc (credentials, private keys, service
 * configs) is not there.
 */
const ETC = [
  'passwd',
  'group',
  'hosts',
  'hostname',
  'host.conf',
  'resolv.conf',
  'nsswitch.conf',
  'gai.conf',
  'services',
  'protocols',
  'networks',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'alternatives',
  // The CA trust stores only: /etc/ssl/private and /etc/pki/tls/private hold the host's own keys.
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
  'pki/ca-trust',
  'pki/tls/certs',
  'pki/tls/cert.pem',
  'pki/tls/openssl.cnf',
  'crypto-policies',
  'os-release',
  'lsb-release',
  'debian_version',
  'mime.types',
  'magic',
  'inputrc',
  'bash.bashrc',
  'profile',
  'shells',
  'locale.alias',
  'locale.conf',
  'terminfo',
  'gitconfig',
  'perl',
].map((name) => `/etc/${name}`);

/** What a sandboxed command sees of the host: an allow-list, not the host minus a deny-list. */
export interface HostView {
  /**
   * The system's host paths bound read-only, parents first: `[source, path]`, the source being
   * what `path` resolves to here (`/etc/resolv.conf` → `/run/systemd/resolve/stub-resolv.conf`),
   * so bubblewrap follows no link of its own, whichever mount namespace it starts in.
   */
  readOnly: [string, string][];
  /** The shell and what `expose` names where not already there: bound read-only after `hide`. */
  exposed: string[];
  /** Symbolic links made inside: `[target, path]` (`/bin` → `usr/bin`). */
  symlinks: [string, string][];
  /**
   * Folders inside what is bound that are covered by an empty tmpfs: the server's own (home, cwd,
   * install folder, the plugin's `hide`) where they lie under a bound folder (a server installed in
   * /usr/lib/node_modules).
   */
  hide: string[];
}

/**
 * The host as a sandboxed command sees it: the system's programs and libraries, the /etc files
 * commands need, the shell, and what `expose` names, all read-only. Nothing else of the host is
 * there — no /home, /srv, /var, /run or /tmp, so no host Unix socket wherever it lives. The
 * workspace, a fresh /tmp, /dev and /proc are added by the caller.
 */
export function hostView(options: {
  workspace?: string | undefined;
  shell: string;
  expose?: readonly string[] | undefined;
  hide?: readonly string[] | undefined;
  /**
   * The account bubblewrap runs as: a system path it may change is not shown. Default: `nobody`
   * for a root server, else this process's.
   */
  user?: Account | undefined;
}): HostView {
  const workspace = options.workspace && real(options.workspace);
  const own = { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1 };
  const user = options.user ?? (mustDropRoot() ? DEFAULT_SANDBOX_USER : own);
  const symlinks: [string, string][] = [];
  const sources = new Map<string, string>();
  const add = (path: string) => {
    const source = real(path);
    // A link that leads into the workspace, or anywhere the command's account may change, would
    // show whatever a command makes it show.
    if (source === undefined || (workspace && within(source, workspace))) return;
    if (changeableBy(source, user)) return;
    sources.set(path, source);
  };
  for (const path of SYSTEM) {
    const link = linkTarget(path);
    if (link !== undefined) symlinks.push([link, path]);
    else add(path);
  }
  for (const path of ETC) add(path);
  const bound = [...sources.keys()];
  const shell = [options.shell, '/bin/bash'].map(real).filter((path) => path !== undefined);
  const extra = [...shell, ...(options.expose ?? []).map(real)].filter(
    (path): path is string => path !== undefined && !bound.some((root) => within(path, root)),
  );
  const readOnly = sorted(bound).map((path): [string, string] => [sources.get(path)!, path]);
  const exposed = sorted(extra);
  const candidates = [
    process.env.XDG_RUNTIME_DIR,
    homedir(),
    process.cwd(),
    installRoot(),
    ...(options.hide ?? []),
  ];
  const hide: string[] = [];
  for (const path of sorted(candidates.map(real))) {
    if (!bound.some((root) => within(path, root) && path !== root)) continue; // not there anyway
    if (hide.some((parent) => within(path, parent))) continue;
    // Never what the command runs with or works in (the workspace is bound after, on top).
    if (workspace && within(workspace, path)) continue;
    if (shell.some((file) => within(file, path))) continue;
    hide.push(path);
  }
  return { readOnly, exposed, symlinks, hide };
}

/** Who owns a path, for the mode bits. */
export interface Account {
  uid: number;
  gid: number;
}

/**
 * Whether `user` owns, or may write in, `path` or a folder above it (by the mode bits): it could
 * then put something else there. A sticky folder above (/tmp) lets it add names, not replace others'.
 */
function changeableBy(path: string, user: Account): boolean {
  for (let at = path; ; at = dirname(at)) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(at);
    } catch {
      return true;
    }
    if (stat.uid === user.uid) return true;
    const write = stat.gid === user.gid ? 0o020 : 0o002;
    const sticky = at !== path && (stat.mode & 0o1000) !== 0;
    if ((stat.mode & write) !== 0 && !sticky) return true;
    if (dirname(at) === at) return false;
  }
}

/** Whether `path` is `folder` or inside it. */
export function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === sep ? sep : `${folder}${sep}`);
}

function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function real(path: string | undefined): string | undefined {
  if (!path?.startsWith(sep)) return undefined;
  try {
    return realpathSync(path);
  } catch {
    return undefined; // absent here: nothing to show or hide
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
