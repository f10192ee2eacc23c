import { defineTool } from '../../../core/index.ts';
import { confinePath, workspacePath } from './confine.ts';
import { fsError } from './errors.ts';
import { openForWrite } from './open-file.ts';
import { workspaceRoot } from './workspace.ts';

/**
 * filesystem_write. Result: `{ path, bytes, created, appended }` — `bytes` is how many bytes of
 * UTF-8 were written, `created` whether the file is new.
 */
export function writeTool() {
  return defineTool({
    name: 'filesystem_write',
    description:
      'Write a text file in the workspace, creating it and its parent folders if needed. Replaces the ' +
      'file unless append is true. Refuses symbolic links and files with other hard links.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path, relative to the workspace root.' },
        content: { type: 'string', description: 'The text to write (UTF-8).' },
        append: {
          type: 'boolean',
          default: false,
          description: 'Add to the end of the file instead of replacing it.',
        },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    permissions: ['fs:write'],
    handler: async (_ctx, { input, sandbox }) => {
      const root = await workspaceRoot(sandbox);
      const { handle, created } = await openForWrite(root, input.path, input.append).catch(
        (error: unknown) => {
          throw fsError(error, input.path);
        },
      );
      try {
        const bytes = Buffer.from(input.content, 'utf8');
        // Emptied only now, after the checks: opening with O_TRUNC would empty a file it then refuses.
        if (!input.append) await handle.truncate(0);
        await handle.writeFile(bytes);
        return {
          path: workspacePath(root, confinePath(root, input.path)),
          bytes: bytes.length,
          created,
          appended: input.append,
        };
      } catch (error) {
        throw fsError(error, input.path);
      } finally {
        await handle.close();
      }
    },
  });
}
