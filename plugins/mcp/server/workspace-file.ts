import { constants, existsSync } from 'node:fs';
import { type FileHandle, lstat, open, readdir, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import { HubosError } from '../../../core/index.ts';
import { MCP_SERVE_ERROR_CODES } from './errors.ts';

const { create } = MCP_SERVE_ERROR_CODES;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** The largest file read as a resource: what one answer (and a session's replay memory) can carry. */
export const MAX_RESOURCE_BYTES = 4 * 1024 * 1024;

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function escapes(path: string, why: string): HubosError {
  return create(
    'RESOURCE_OUTSIDE_WORKSPACE',
    `"${path}" is outside the workspace (${why}): name a file inside it`,
  );
}

/**
 * The absolute, real path of `path` (relative to the workspace `root`, a real path), refused when
 * it leaves the workspace by `..`, an absolute path or a symbolic link. Throws RESOURCE_NOT_FOUND
 * for what does not exist.
 */
export async function realPathInside(root: string, path: string): Promise<string> {
  if (path.includes('\0')) throw escapes(path, 'a NUL byte');
  const lexical = resolve(root, path);
  if (!inside(root, lexical))
    throw escapes(path, isAbsolute(path) ? 'paths are relative to the workspace' : '..');
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw new HubosError('RESOURCE_NOT_FOUND', `no file "${path}" in the workspace`);
  }
  if (!inside(root, real)) throw escapes(path, 'a symbolic link points out of it');
  return real;
}

/**
 * Reads a regular file of the workspace. Confined three ways: the path (`..`, absolute), its real
 * path (symbolic links), and the opened descriptor's own real path, so a folder swapped for a link
 * between the check and the open is caught too. A file with other hard links (which may be a file
 * elsewhere), a FIFO or device, or one over MAX_RESOURCE_BYTES is refused.
 */
export async function readWorkspaceFile(root: string, path: string): Promise<Buffer> {
  const real = await realPathInside(root, path);
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    throw new HubosError(
      'RESOURCE_NOT_FOUND',
      `"${path}" cannot be opened (it changed, or it is not a file)`,
    );
  }
  try {
    if (!inside(root, await descriptorPath(handle, real))) throw escapes(path, 'it was swapped for a link');
    const stat = await handle.stat();
    if (!stat.isFile())
      throw create('RESOURCE_UNREADABLE', `"${path}" is not a file: name a file (resources/list shows them)`);
    if (stat.nlink > 1)
      throw create(
        'RESOURCE_UNREADABLE',
        `"${path}" has other hard links, which may be files outside the workspace: it is not served`,
      );
    if (stat.size > MAX_RESOURCE_BYTES)
      throw create(
        'RESOURCE_UNREADABLE',
        `"${path}" is ${stat.size} bytes, over the ${MAX_RESOURCE_BYTES} a resource may carry: read it in parts with a tool`,
      );
    // At most what was measured: a file growing meanwhile does not grow the answer past the cap.
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Where an open descriptor really is: read from it on Linux, else its path checked to be the same file. */
async function descriptorPath(handle: FileHandle, openedAs: string): Promise<string> {
  if (PROC_FD) return readlink(`/proc/self/fd/${handle.fd}`);
  const [opened, now] = await Promise.all([handle.stat(), lstat(openedAs)]);
  if (opened.dev !== now.dev || opened.ino !== now.ino) return '';
  return realpath(openedAs);
}

/**
 * The files and folders in a workspace folder (confined as a read is), folders marked with a
 * trailing `/`. Symbolic links are not followed, nor shown.
 */
export async function listWorkspaceFolder(root: string, folder: string): Promise<string[]> {
  const real = await realPathInside(root, folder);
  const entries = await readdir(real, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() || entry.isDirectory())
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
}
