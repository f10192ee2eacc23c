import { constants, type Stats } from 'node:fs';
import { type FileHandle, mkdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import {
  childPath,
  confinePath,
  openAt,
  openChildDir,
  openDirInside,
  type PinnedDir,
  realpathInside,
} from './confine.ts';
import { hardLinkedReadError, hasOtherHardLinks } from './hard-links.ts';
import { adoptWorkspaceOwner } from './workspace-owner.ts';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND } = constants;

export interface OpenedFile {
  handle: FileHandle;
  stat: Stats;
}

const errno = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Opens a regular file for reading. A symlink is followed only to a file inside the workspace
 * (re-resolved and re-opened with O_NOFOLLOW, so what is opened is what was checked). A file with
 * other hard links is refused unless `readHardLinkedFiles` (see ./hard-links.ts).
 */
export async function openForRead(
  root: string,
  path: string,
  readHardLinkedFiles = false,
): Promise<OpenedFile> {
  let abs = confinePath(root, path);
  for (let hops = 0; ; hops++) {
    if (abs === root) throw new Error(`is a directory: ${path} (use filesystem_list to see what it holds)`);
    const dir = await openDirInside(root, dirname(abs), path);
    try {
      const opened = await regularFile(await openAt(dir, basename(abs), O_RDONLY, undefined, path), path);
      if (readHardLinkedFiles || !hasOtherHardLinks(opened.stat)) return opened;
      await opened.handle.close();
      throw hardLinkedReadError(path, opened.stat.nlink);
    } catch (error) {
      if (errno(error) !== 'ELOOP' || hops >= 8) throw error;
      abs = await realpathInside(root, abs, path);
    } finally {
      await dir.handle.close();
    }
  }
}

/**
 * Opens a file for writing, creating it and its parent folders as needed. Refuses a symlink
 * (O_NOFOLLOW), anything not a regular file, and a file with other hard links — writing there
 * would change a file elsewhere. Truncation happens only after those checks, never at open.
 */
export async function openForWrite(
  root: string,
  path: string,
  append: boolean,
): Promise<OpenedFile & { created: boolean }> {
  const abs = confinePath(root, path);
  if (abs === root) throw new Error(`is a directory: ${path}`);
  const dir = await ensureDir(root, dirname(abs), path);
  const name = basename(abs);
  const flags = O_WRONLY | (append ? O_APPEND : 0);
  try {
    let created = true;
    let handle: FileHandle;
    try {
      handle = await openAt(dir, name, flags | O_CREAT | O_EXCL, 0o666, path);
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
      created = false;
      handle = await openAt(dir, name, flags, undefined, path);
    }
    const opened = await regularFile(handle, path);
    if (created) await adoptWorkspaceOwner(handle, root);
    if (opened.stat.nlink > 1) {
      await handle.close();
      throw new Error(
        `refusing to write to a hard-linked file (${opened.stat.nlink} links): ${path}; writing would also change the other links`,
      );
    }
    return { ...opened, created };
  } catch (error) {
    if (errno(error) === 'ELOOP') throw new Error(`refusing to write through a symbolic link: ${path}`);
    throw error;
  } finally {
    await dir.handle.close();
  }
}

/** Closes and refuses the handle unless it is a regular file (FIFOs, devices, sockets, folders). */
async function regularFile(handle: FileHandle, path: string): Promise<OpenedFile> {
  const stat = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (stat.isFile()) return { handle, stat };
  await handle.close();
  if (stat.isDirectory()) throw new Error(`is a directory: ${path}`);
  throw new Error(`not a regular file: ${path}`);
}

/** Pins the folder at `abs`, creating it and missing parents one component at a time inside pins. */
export async function ensureDir(root: string, abs: string, display: string): Promise<PinnedDir> {
  try {
    return await openDirInside(root, abs, display);
  } catch (error) {
    if (errno(error) !== 'ENOENT' || abs === root) throw error;
  }
  const parent = await ensureDir(root, dirname(abs), display);
  try {
    const target = childPath(parent, basename(abs));
    const made = await mkdir(target).then(
      () => true,
      (error: unknown) => {
        if (errno(error) !== 'EEXIST') throw error;
        return false;
      },
    );
    const child = await openChildDir(parent, basename(abs), display);
    if (made) await adoptWorkspaceOwner(child.handle, root);
    return child;
  } catch (error) {
    if (errno(error) !== 'ELOOP') throw error;
    // A dangling symlink where a folder should be: say where it leads, never create through it.
    await realpathInside(root, abs, display);
    throw new Error(`cannot create a folder for ${display}: a symbolic link on the way points to nothing`);
  } finally {
    await parent.handle.close();
  }
}
