import { lstat, unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { defineTool } from '../../../core/index.ts';
import { childPath, confinePath, openDirInside, workspacePath } from './confine.ts';
import { fsError } from './errors.ts';
import { removeTree } from './remove-tree.ts';
import { type EntryType, entryType } from './walk.ts';
import { workspaceRoot } from './workspace.ts';

/**
 * filesystem_delete. Result: `{ path, deleted, removed }` — `deleted` is the type of what was
 * deleted (a symlink is removed itself, never its target); `removed` counts the entries that went,
 * the folder itself included.
 */
export function deleteTool() {
  return defineTool({
    name: 'filesystem_delete',
    description:
      'Delete a file or symbolic link in the workspace; a folder only with recursive: true (it and ' +
      'everything in it). The workspace root itself cannot be deleted.',
    inputSchema: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          minLength: 1,
          description: 'Path to delete, relative to the workspace root.',
        },
        recursive: {
          type: 'boolean',
          default: false,
          description: 'Required to delete a folder: deletes it and all of its contents.',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    permissions: ['fs:delete'],
    handler: async ({ signal }, { input, sandbox }) => {
      const root = await workspaceRoot(sandbox);
      const abs = confinePath(root, input.path);
      if (abs === root) throw new Error(`refusing to delete the workspace root: ${input.path}`);
      const missing = { ENOENT: `no such file or directory: ${input.path}` };
      const parent = await openDirInside(root, dirname(abs), input.path).catch((error: unknown) => {
        throw fsError(error, input.path, missing);
      });
      try {
        const name = basename(abs);
        const target = childPath(parent, name);
        const type: EntryType = entryType(await lstat(target));
        if (type !== 'directory') {
          await unlink(target);
          return { path: workspacePath(root, abs), deleted: type, removed: 1 };
        }
        if (!input.recursive) {
          throw new Error(
            `is a directory: ${input.path}; set recursive: true to delete it and everything in it`,
          );
        }
        const removed = await removeTree(parent, name, signal);
        return { path: workspacePath(root, abs), deleted: type, removed };
      } catch (error) {
        throw fsError(error, input.path, missing);
      } finally {
        await parent.handle.close();
      }
    },
  });
}
