import { execFileSync } from 'node:child_process';

/** The account sandboxed commands run as when the server runs as root: `nobody`, by default. */
export interface SandboxUser {
  uid: number;
  gid: number;
}

export const DEFAULT_SANDBOX_USER: SandboxUser = Object.freeze({ uid: 65534, gid: 65534 });
const SETPRIV = '/usr/bin/setpriv';
const CHOWN = '/bin/chown';

/**
 * Whether commands must leave root before bubblewrap starts. A user namespace made by root maps
 * its root to the host's: without any capability it still owns what root owns (`/proc/sys`,
 * `/etc/shadow`), so a root server starts the sandbox as an unprivileged account instead.
 */
export function mustDropRoot(): boolean {
  return process.geteuid?.() === 0;
}

/**
 * `file args` started as `user` with no supplementary groups (util-linux `setpriv`), when the
 * server is root; unchanged otherwise.
 */
export function asSandboxUser(
  command: { file: string; args: string[] },
  user: SandboxUser,
): { file: string; args: string[] } {
  if (!mustDropRoot()) return command;
  // biome-ignore format: one flag and its value per line
  return {
    file: SETPRIV,
    args: [
      '--reuid', String(user.uid),
      '--regid', String(user.gid),
      '--clear-groups',
      '--',
      command.file,
      ...command.args,
    ],
  };
}

const handedOver = new Set<string>();

/**
 * Gives a root server's workspace to the sandbox's account, once per workspace and process, so
 * commands can write there (and only there). The file tools keep what they create owned the same
 * way (see the filesystem tools' `adoptWorkspaceOwner`). That account's processes may be changing
 * the tree meanwhile, so it is not walked by path: coreutils' `chown -R -P -h` opens each folder
 * relative to its parent's descriptor, never through a symbolic link, and changes links themselves,
 * so a folder swapped for a link to elsewhere mid-walk does not lead root out of the workspace.
 */
export function handOverWorkspace(workspace: string, user: SandboxUser): void {
  if (!mustDropRoot() || handedOver.has(workspace)) return;
  // biome-ignore format: one flag per line
  execFileSync(CHOWN, [
    '-R', '-P', '--no-dereference',
    '--', `${user.uid}:${user.gid}`, workspace,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  handedOver.add(workspace);
}
