import { readdir, rmdir, unlink } from 'node:fs/promises';
import { childPath, dirPath, openChildDir, type PinnedDir } from './confine.ts';

const MAX_DEPTH = 256;
const errno = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Deletes `name` inside the pinned folder and everything below it; returns how many entries went.
 * Every folder is opened from its pinned parent with O_NOFOLLOW and emptied through its own
 * descriptor, so a sub-folder swapped for a symlink mid-way is unlinked as a link — the walk never
 * leaves the tree (the flaw of path-based recursive deletes, cf. CVE-2022-21658).
 */
export async function removeTree(
  parent: PinnedDir,
  name: string,
  signal: AbortSignal,
  depth = 0,
): Promise<number> {
  signal.throwIfAborted();
  const dir = await openChildDir(parent, name).catch(async (error: unknown) => {
    const code = errno(error);
    if (code !== 'ELOOP' && code !== 'ENOTDIR') throw error;
    await unlink(childPath(parent, name)); // not (or no longer) a folder: remove the entry itself
    return undefined;
  });
  if (!dir) return 1;
  let removed = 0;
  try {
    if (depth >= MAX_DEPTH) throw new Error(`folders nested deeper than ${MAX_DEPTH} levels`);
    for (const entry of await readdir(dirPath(dir), { withFileTypes: true })) {
      if (entry.isDirectory()) {
        removed += await removeTree(dir, entry.name, signal, depth + 1);
        continue;
      }
      try {
        await unlink(childPath(dir, entry.name));
        removed++;
      } catch (error) {
        // Replaced by a folder since it was listed.
        if (errno(error) !== 'EISDIR' && errno(error) !== 'EPERM') throw error;
        removed += await removeTree(dir, entry.name, signal, depth + 1);
      }
    }
  } finally {
    await dir.handle.close();
  }
  await rmdir(childPath(parent, name));
  return removed + 1;
}
