import { defineTool } from '../../../core/index.ts';
import { confinePath, workspacePath } from './confine.ts';
import { fsError } from './errors.ts';
import { openForRead } from './open-file.ts';
import type { FilesystemLimits } from './options.ts';
import { BinaryFileError, type LineWindow, readLineWindow } from './text.ts';
import { workspaceRoot } from './workspace.ts';

/**
 * filesystem_read. Result:
 * `{ path, size, content, start_line, end_line, total_lines?, truncated, next_offset? }` —
 * `content` holds lines start_line..end_line; `total_lines` is set when the read reached the end
 * of the file; `next_offset` is where to continue when the file goes on. When the byte cap cut the
 * read short, `truncated` is true and `content` ends with a `[truncated: ...]` line saying so.
 */
export function readTool(limits: FilesystemLimits) {
  return defineTool({
    name: 'filesystem_read',
    description:
      'Read a text file in the workspace. Returns its lines (optionally a window of them: offset is the ' +
      `1-based first line, limit the number of lines), at most ${limits.maxReadBytes} bytes per call; ` +
      'a longer result is marked truncated and says which offset to read on from. Binary files are refused' +
      (limits.readHardLinkedFiles ? '.' : ', and so are files with more than one hard link.'),
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path, relative to the workspace root.' },
        offset: { type: 'integer', minimum: 1, default: 1, description: 'First line to return (1-based).' },
        limit: {
          type: 'integer',
          minimum: 1,
          description: 'How many lines to return (default: to the end).',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    permissions: ['fs:read'],
    handler: async (_ctx, { input, sandbox }) => {
      const root = await workspaceRoot(sandbox);
      const { handle, stat } = await openForRead(root, input.path, limits.readHardLinkedFiles).catch(
        (error: unknown) => {
          throw fsError(error, input.path, { ENOENT: `no such file: ${input.path}` });
        },
      );
      try {
        const window = await readLineWindow(
          handle,
          stat.size,
          input.offset,
          input.limit,
          limits.maxReadBytes,
        );
        const total = window.totalLines;
        if (total !== undefined && input.offset > Math.max(total, 1)) {
          throw new Error(`offset ${input.offset} is past the end of ${input.path} (${total} lines)`);
        }
        let content = window.text;
        if (window.truncated) content += truncationMarker(window, limits.maxReadBytes);
        return {
          path: workspacePath(root, confinePath(root, input.path)),
          size: stat.size,
          content,
          start_line: window.from,
          end_line: window.to,
          ...(total !== undefined ? { total_lines: total } : {}),
          truncated: window.truncated,
          ...(window.nextLine !== undefined ? { next_offset: window.nextLine } : {}),
        };
      } catch (error) {
        if (error instanceof BinaryFileError) {
          throw new Error(
            `binary file: ${input.path} (${stat.size} bytes); filesystem_read reads text files only`,
          );
        }
        throw fsError(error, input.path);
      } finally {
        await handle.close();
      }
    },
  });
}

function truncationMarker(window: LineWindow, cap: number): string {
  const separator = window.text.endsWith('\n') ? '' : '\n';
  const why = window.partialLine
    ? `line ${window.to} is longer than the ${cap}-byte limit and only its start is shown`
    : `the ${cap}-byte limit was reached after line ${window.to}`;
  return `${separator}[truncated: ${why}; call filesystem_read with offset ${window.nextLine} to read on]`;
}
