import { chmodSync, existsSync, lstatSync, mkdtempSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SandboxUser } from './sandbox-user.ts';

const MOUNT_PATHS = ['/usr/bin/mount', '/bin/mount'];
const UNSHARE_PATHS = ['/usr/bin/unshare', '/bin/unshare'];
/**
 * Where root makes the empty folder the workspace is shown at, in a mount namespace of the launch
 * alone: never over a real host folder, whose paths (`/run/systemd/...`, the target of
 * `/etc/resolv.conf`) would then lead into the workspace.
 */
const VIEW_PARENTS = ['/run', '/var/tmp', '/tmp'];

/**
 * `<mount> --rbind <workspace> <point>`, then the rest of the arguments: run as root in a mount
 * namespace of its own, so the host's mounts stay as they are and the bind ends with the command.
 */
const VIEW_SCRIPT = '"$1" --rbind -- "$2" "$3" || exit 125; shift 3; exec "$@"';

/**
 * Whether `user` can walk down to `path`: search permission on every folder above it, by the mode
 * bits (an ACL that grants more only makes the answer too careful).
 */
export function reachableBy(path: string, user: SandboxUser): boolean {
  return closedFolder(path, user) === undefined;
}

/** The highest folder above `path` that `user` may not enter, or undefined when there is none. */
export function closedFolder(path: string, user: SandboxUser): string | undefined {
  const above: string[] = [];
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    above.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return above.find((dir) => !enterable(dir, user));
}

function enterable(dir: string, user: SandboxUser): boolean {
  try {
    const stat = statSync(dir);
    const bits = stat.uid === user.uid ? 0o100 : stat.gid === user.gid ? 0o010 : 0o001;
    return (stat.mode & bits) !== 0;
  } catch {
    return false;
  }
}

/**
 * How bubblewrap, started as the unprivileged sandbox user, finds a root server's workspace. It
 * resolves every path it binds as that user (`--bind-fd` too: it resolves the descriptor's path),
 * so a workspace under a folder only root may enter (`/root/app/workspace`, a `mkdtemp` folder)
 * cannot be bound by its path. Root then binds it, in a mount namespace of this launch only, on an
 * empty folder of its own the user can reach (see `viewFolder`), and bubblewrap binds it from there
 * to the workspace's own path.
 */
export function workspaceSource(
  workspace: string,
  user: SandboxUser,
): {
  source: string;
  wrap?: (command: { file: string; args: string[] }) => { file: string; args: string[] };
} {
  if (reachableBy(workspace, user)) return { source: workspace };
  const unshare = UNSHARE_PATHS.find((path) => existsSync(path));
  const mount = MOUNT_PATHS.find((path) => existsSync(path));
  const point = viewFolder(user);
  // Without them bwrap reports the folder it cannot enter, and the startup probe says how to fix it.
  if (!unshare || !mount || !point) return { source: workspace };
  return {
    source: point,
    wrap: (command) => ({
      file: unshare,
      // biome-ignore format: one flag and its value per line
      args: [
        '--mount', '--propagation', 'private',
        '--', '/bin/sh', '-c', VIEW_SCRIPT, 'hubos-view', mount, workspace, point,
        command.file, ...command.args,
      ],
    }),
  };
}

let madeView: string | undefined;

/**
 * This process's view folder: fresh (`mkdtemp`), root's, mode 0711, under a folder `user` can
 * reach; empty on the host, removed when the process exits. Undefined when none can be made.
 */
function viewFolder(user: SandboxUser): string | undefined {
  if (madeView && isOwnFolder(madeView)) return madeView;
  for (const parent of VIEW_PARENTS) {
    if (!isOwnFolder(parent) || !reachableBy(join(parent, 'x'), user)) continue;
    try {
      const folder = mkdtempSync(join(parent, 'hubos-workspace-'));
      chmodSync(folder, 0o711);
      if (madeView === undefined) process.once('exit', removeView);
      madeView = folder;
      return folder;
    } catch {
      // read-only or full: the next place
    }
  }
  return undefined;
}

function removeView(): void {
  try {
    if (madeView) rmdirSync(madeView);
  } catch {
    // already gone, or a launch's namespace still holds it: an empty folder is left
  }
}

/** A real folder (not a link) that root owns. */
function isOwnFolder(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() && stat.uid === 0;
  } catch {
    return false;
  }
}
