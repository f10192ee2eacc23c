import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { dirname, parse } from 'node:path';

/**
 * The rule for a folder whose files run as code (Node's compile cache, the schema cache): it is
 * used only when no other user can change it or any folder above it, or else could plant code that
 * this user's process (root's, say) then runs.
 */

/**
 * Makes `dir` if missing (private) and tells whether code may be kept in it: it is this user's,
 * and it and every folder above it pass `safeAncestors`. False when it cannot be made or checked.
 */
export function privateCodeFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return isPrivateFolder(dir) && safeAncestors(dirname(dir));
  } catch {
    return false;
  }
}

/** A real folder (not a link) of this user's that nobody else may write to. */
export function isPrivateFolder(path: string): boolean {
  const stat = lstatSync(path);
  return stat.isDirectory() && ownedBySelf(stat) && !writableByOthers(stat);
}

/**
 * Every folder from `path` up to the root is this user's or root's, and no one else may change
 * it, unless it is sticky (as /tmp is): as OpenSSH checks the folders above `authorized_keys`.
 */
export function safeAncestors(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) return false;
    const owner = ownedBySelf(stat) || stat.uid === 0;
    if (!owner || (writableByOthers(stat) && (stat.mode & 0o1000) === 0)) return false;
    if (dir === parse(dir).root) return true;
  }
}

// Windows reports no owners and every folder as writable: there, the user's profile is private.
const POSIX = process.platform !== 'win32';
/** The file or folder is this user's. */
export const ownedBySelf = (stat: Stats): boolean => !POSIX || stat.uid === process.getuid?.();
/** Its group or everyone may write to it. */
export const writableByOthers = (stat: Stats): boolean => POSIX && (stat.mode & 0o022) !== 0;
