/**
 * Workspace confinement: the primitives file tools use so that no path — `..`, absolute, through
 * symlinks, or swapped between check and use — reaches a file outside the workspace root.
 *
 * The rule: strings are only a first filter. Every directory a tool works in is opened and pinned
 * as a file descriptor whose real path is read back from the descriptor (Linux: the
 * `/proc/self/fd/<fd>` link) and checked against the root. Files are then opened relative to that
 * pinned directory (`/proc/self/fd/<fd>/<name>`, the same as `openat`) with `O_NOFOLLOW` and
 * `O_NONBLOCK`, so a directory swapped for a symlink after the check cannot redirect the open, and
 * a FIFO never blocks. Where `/proc` is missing (macOS, BSD), an opened file is still checked, by
 * comparing its `fstat` dev/ino with the `lstat` of its real path, so reading through a swap is
 * caught; but walks, folder creation and deletes then go by path and keep a race window.
 *
 * `root` must be a real path (the kernel's workspace root is one).
 */
import { constants, existsSync } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

const { O_RDONLY } = constants;
// Not defined on Windows: there they are no-ops and only the descriptor check protects.
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Whether descriptors can be named as paths (`/proc/self/fd/<fd>`), which makes opens race-free. */
export const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** A path that would leave the workspace. The message is meant for the model. */
export class ConfinementError extends Error {
  readonly path: string;
  constructor(path: string, why = '') {
    super(`path escapes the workspace: ${path}${why ? ` (${why})` : ''}`);
    this.name = 'ConfinementError';
    this.path = path;
  }
}

/** True when `path` (absolute, normalized) is `root` or below it. */
export function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/**
 * The lexical check: resolves `path` against `root` (`.` and `..` folded, absolute paths kept) and
 * returns the absolute path, or throws if it lies outside. Symlinks are not looked at here.
 */
export function confinePath(root: string, path: string): string {
  if (path.includes('\0')) throw new Error(`invalid path (contains a NUL byte): ${JSON.stringify(path)}`);
  const resolved = resolve(root, path);
  if (!isInside(root, resolved)) {
    throw new ConfinementError(path, isAbsolute(path) ? 'paths are relative to the workspace root' : '');
  }
  return resolved;
}

/** `abs` relative to the root with `/` separators, `.` for the root itself: how results name paths. */
export function workspacePath(root: string, abs: string): string {
  const rel = relative(root, abs);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/**
 * The real path of `path` with every existing symlink resolved (a missing tail is kept as written,
 * a dangling symlink is followed to where it points), or throws if any of it lies outside.
 * This is a check, not a use: callers still open through `openDirInside` / `openAt`.
 */
export async function realpathInside(root: string, path: string, display = path): Promise<string> {
  const outside = () => new ConfinementError(display, 'a symbolic link points outside it');
  let current = confinePath(root, path);
  for (let hops = 0; hops < 40; hops++) {
    const tail: string[] = [];
    let existing = current;
    let link: string | undefined;
    for (;;) {
      const real = await realpath(existing).catch((error: unknown) => {
        if (!isMissing(error) || existing === root) throw error;
        return undefined;
      });
      if (real !== undefined) {
        const full = join(real, ...tail.reverse());
        if (!isInside(root, full)) throw outside();
        return full;
      }
      link = await danglingTarget(existing);
      if (link !== undefined) break;
      tail.push(basename(existing));
      existing = dirname(existing);
    }
    // `existing` is a dangling symlink: go on from where it points, then the rest of the path.
    current = join(resolve(await realpath(dirname(existing)), link), ...tail.reverse());
    if (!isInside(root, current)) throw outside();
  }
  throw new Error(`too many levels of symbolic links: ${display}`);
}

async function danglingTarget(path: string): Promise<string | undefined> {
  try {
    const info = await lstat(path);
    return info.isSymbolicLink() ? await readlink(path) : undefined;
  } catch {
    return undefined;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A directory held open and checked to be inside the root; close `handle` when done. */
export interface PinnedDir {
  readonly root: string;
  readonly handle: FileHandle;
  /** Its real path when it was opened. */
  readonly path: string;
}

/** A path naming the pinned directory itself, for readdir. */
export function dirPath(dir: PinnedDir): string {
  return PROC_FD ? `/proc/self/fd/${dir.handle.fd}` : dir.path;
}

/** A path naming `name` inside the pinned directory: resolved from the descriptor, not from a string. */
export function childPath(dir: PinnedDir, name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes(sep)) {
    throw new Error(`not a single path component: ${JSON.stringify(name)}`);
  }
  return `${dirPath(dir)}/${name}`;
}

/**
 * The real path of what `handle` refers to. Linux reads it from the descriptor; elsewhere it is
 * the realpath of `openedAs`, accepted only if it is the same file (dev/ino) as the descriptor.
 */
async function descriptorPath(handle: FileHandle, openedAs: string): Promise<string> {
  if (PROC_FD) return readlink(`/proc/self/fd/${handle.fd}`);
  return realpathByInode(handle, openedAs);
}

/** The portable check: realpath(openedAs), and proof by dev/ino that the descriptor is that file. */
async function realpathByInode(handle: FileHandle, openedAs: string): Promise<string> {
  const [opened, real] = await Promise.all([handle.stat(), realpath(openedAs)]);
  const current = await lstat(real);
  if (opened.dev !== current.dev || opened.ino !== current.ino) {
    throw new Error(`${basename(openedAs)} changed while it was being opened; try again`);
  }
  return real;
}

/** Closes `handle` unless its real path is inside the root; returns that path. */
async function checkDescriptor(root: string, handle: FileHandle, openedAs: string, display: string) {
  try {
    const real = await descriptorPath(handle, openedAs);
    if (!isInside(root, real)) throw new ConfinementError(display, 'a symbolic link points outside it');
    return real;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Opens and pins the directory at `abs` (symlinks followed: opening a directory has no side
 * effects, and the descriptor is checked afterwards). Throws ENOENT / ENOTDIR errors as Node does.
 */
export async function openDirInside(root: string, abs: string, display = abs): Promise<PinnedDir> {
  const handle = await open(confinePath(root, abs), O_RDONLY | O_DIRECTORY).catch(async (error: unknown) => {
    // "missing" or "not a folder" would tell what lies outside: say it escapes when it does.
    await realpathInside(root, abs, display);
    throw error;
  });
  return { root, handle, path: await checkDescriptor(root, handle, abs, display) };
}

/** Opens and pins the sub-directory `name` of `dir` without following a symlink (ELOOP if it is one). */
export async function openChildDir(dir: PinnedDir, name: string, display = name): Promise<PinnedDir> {
  const handle = await open(childPath(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  const path = await checkDescriptor(dir.root, handle, join(dir.path, name), display);
  return { root: dir.root, handle, path };
}

/**
 * Opens `name` inside the pinned directory with `flags` plus O_NOFOLLOW (a symlink fails with
 * ELOOP) and O_NONBLOCK (a FIFO never blocks), and checks the descriptor's real path.
 */
export async function openAt(
  dir: PinnedDir,
  name: string,
  flags: number,
  mode?: number,
  display = name,
): Promise<FileHandle> {
  const handle = await open(childPath(dir, name), flags | O_NOFOLLOW | O_NONBLOCK, mode);
  await checkDescriptor(dir.root, handle, join(dir.path, name), display);
  return handle;
}
