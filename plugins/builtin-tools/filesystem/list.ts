import { lstat, readlink } from 'node:fs/promises';
import { defineTool } from '../../../core/index.ts';
import { childPath, confinePath, openDirInside, workspacePath } from './confine.ts';
import { fsError } from './errors.ts';
import { hasOtherHardLinks } from './hard-links.ts';
import type { FilesystemLimits } from './options.ts';
import { type EntryType, type WalkEntry, walk } from './walk.ts';
import { workspaceRoot } from './workspace.ts';

/**
 * One listed entry: `size` for files (bytes), `target` for symlinks (as written, never followed),
 * `links` for files with more than one hard link. Such a file's size is shown only when
 * `readHardLinkedFiles` allows reading it: it may be a file from outside the workspace.
 */
export interface ListEntry {
  path: string;
  type: EntryType;
  size?: number;
  target?: string;
  links?: number;
}

/**
 * filesystem_list. Result: `{ path, entries: ListEntry[], truncated }` — entries in depth-first
 * order, sorted by name, paths relative to the workspace root; `truncated` when the entry cap
 * stopped the listing.
 */
export function listTool(limits: FilesystemLimits) {
  return defineTool({
    name: 'filesystem_list',
    description:
      'List a folder of the workspace: each entry with its type (file, directory, symlink, ...) and ' +
      'size. With recursive, also lists sub-folders down to depth levels. Symbolic links are shown, ' +
      'never followed. A file with more than one hard link shows its link count' +
      (limits.readHardLinkedFiles ? '.' : ' and no size: filesystem_read refuses it.') +
      ` At most ${limits.maxListEntries} entries.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          default: '.',
          description: 'Folder path, relative to the workspace root (default: the root).',
        },
        recursive: { type: 'boolean', default: false, description: 'Also list the contents of sub-folders.' },
        depth: {
          type: 'integer',
          minimum: 1,
          maximum: 32,
          default: 5,
          description: 'With recursive: how many levels to list (1 = only the folder itself).',
        },
      },
      additionalProperties: false,
    },
    permissions: ['fs:read'],
    handler: async ({ signal }, { input, sandbox }) => {
      const root = await workspaceRoot(sandbox);
      const abs = confinePath(root, input.path);
      const dir = await openDirInside(root, abs, input.path).catch((error: unknown) => {
        throw fsError(error, input.path, {
          ENOENT: `no such directory: ${input.path}`,
          ENOTDIR: `not a directory: ${input.path} (use filesystem_read to read a file)`,
        });
      });
      const entries: ListEntry[] = [];
      let truncated = false;
      try {
        for await (const entry of walk(
          dir,
          workspacePath(root, abs),
          input.recursive ? input.depth : 1,
          signal,
        )) {
          if (entries.length >= limits.maxListEntries) {
            truncated = true;
            break;
          }
          entries.push(await describe(entry, limits.readHardLinkedFiles));
        }
      } catch (error) {
        throw fsError(error, input.path);
      } finally {
        await dir.handle.close();
      }
      return { path: workspacePath(root, abs), entries, truncated };
    },
  });
}

/** Size and link target come from the entry itself (lstat/readlink through the pinned folder). */
async function describe(entry: WalkEntry, readHardLinkedFiles: boolean): Promise<ListEntry> {
  const described: ListEntry = { path: entry.path, type: entry.type };
  try {
    if (entry.type === 'file') {
      const stat = await lstat(childPath(entry.dir, entry.name));
      if (hasOtherHardLinks(stat)) described.links = stat.nlink;
      if (readHardLinkedFiles || !hasOtherHardLinks(stat)) described.size = stat.size;
    }
    if (entry.type === 'symlink') described.target = await readlink(childPath(entry.dir, entry.name));
  } catch {
    // Removed since it was listed: keep the entry without the detail.
  }
  return described;
}
