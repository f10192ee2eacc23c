import type { Dirent, Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirPath, openChildDir, type PinnedDir } from './confine.ts';

export type EntryType =
  | 'file'
  | 'directory'
  | 'symlink'
  | 'fifo'
  | 'socket'
  | 'block-device'
  | 'char-device'
  | 'unknown';

export interface WalkEntry {
  /** Path relative to the workspace root, `/`-separated. */
  path: string;
  name: string;
  type: EntryType;
  /** 1 for the start folder's own entries. */
  depth: number;
  /** The pinned folder holding the entry: open the entry with `openAt(dir, name, …)` before resuming the walk. */
  dir: PinnedDir;
}

/**
 * Walks a pinned folder depth-first, entries sorted by name. Symlinks are reported, never
 * followed; sub-folders are opened from their pinned parent with O_NOFOLLOW, so a folder swapped
 * for a symlink mid-walk is skipped instead of leading outside. Holds one descriptor per level.
 */
export async function* walk(
  dir: PinnedDir,
  path: string,
  maxDepth: number,
  signal?: AbortSignal,
  depth = 1,
): AsyncGenerator<WalkEntry> {
  const entries = await readdir(dirPath(dir), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of entries) {
    signal?.throwIfAborted();
    const entry: WalkEntry = {
      path: path === '.' ? dirent.name : `${path}/${dirent.name}`,
      name: dirent.name,
      type: entryType(dirent),
      depth,
      dir,
    };
    yield entry;
    if (entry.type !== 'directory' || depth >= maxDepth) continue;
    const child = await openChildDir(dir, dirent.name, entry.path).catch((error: unknown) => {
      if (GONE.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
      throw error;
    });
    if (!child) continue;
    try {
      yield* walk(child, entry.path, maxDepth, signal, depth + 1);
    } finally {
      await child.handle.close();
    }
  }
}

// Changed since it was listed (removed, replaced by a symlink or a file) or not ours to read: skip it.
const GONE = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EACCES', 'EPERM']);

export function entryType(entry: Dirent | Stats): EntryType {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isFIFO()) return 'fifo';
  if (entry.isSocket()) return 'socket';
  if (entry.isBlockDevice()) return 'block-device';
  if (entry.isCharacterDevice()) return 'char-device';
  return 'unknown';
}
