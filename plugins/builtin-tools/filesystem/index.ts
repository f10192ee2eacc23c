/**
 * The built-in filesystem tools: read, write, list, delete and search files inside the workspace
 * (`sandbox.root`). Every path is confined to it — see ./confine.ts for how.
 */
import type { Tool } from '../../../core/index.ts';
import { deleteTool } from './delete.ts';
import { listTool } from './list.ts';
import { type FilesystemOptions, resolveLimits } from './options.ts';
import { readTool } from './read.ts';
import { searchTool } from './search.ts';
import { writeTool } from './write.ts';

export { FILESYSTEM_CONFIG_SCHEMA, FILESYSTEM_DEFAULTS, type FilesystemOptions } from './options.ts';

/** filesystem_read, filesystem_write, filesystem_list, filesystem_delete, filesystem_search — in that order. */
export function filesystemTools(options: FilesystemOptions = {}): Tool[] {
  const limits = resolveLimits(options);
  return [readTool(limits), writeTool(), listTool(limits), deleteTool(), searchTool(limits)];
}
