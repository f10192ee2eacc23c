import { type FileHandle, stat } from 'node:fs/promises';

/**
 * On a server running as root, whatever the file tools create in the workspace gets the workspace's
 * owner: the bash sandbox runs as that (unprivileged) account and must be able to change it too.
 * Nothing changes when the server is not root or the workspace is root's own.
 */
export async function adoptWorkspaceOwner(handle: FileHandle, root: string): Promise<void> {
  if (process.geteuid?.() !== 0) return;
  const { uid, gid } = await stat(root);
  if (uid !== 0) await handle.chown(uid, gid);
}
