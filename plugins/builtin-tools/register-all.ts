import type { Registry, Tool } from '../../core/index.ts';
import { type BashOptions, bashTool, type SandboxOptions } from './bash/index.ts';
import { type FilesystemOptions, filesystemTools } from './filesystem/index.ts';
import { type HttpToolOptions, httpTools } from './http/index.ts';
import { type WebsearchOptions, websearchTool } from './websearch/index.ts';

/** Options of the built-in tools; under the `hubos` command they come from the config keys of the same names. */
export interface BuiltinToolsOptions {
  filesystem?: FilesystemOptions;
  /** The bash tool's sandbox; unset: bubblewrap where it works here, else unsandboxed. */
  sandbox?: SandboxOptions;
  bash?: Omit<BashOptions, 'sandbox'>;
  http?: HttpToolOptions;
  websearch?: WebsearchOptions;
}

/** The names `registerAll` registers, in order. */
export const BUILTIN_TOOL_NAMES = [
  'filesystem_read',
  'filesystem_write',
  'filesystem_list',
  'filesystem_delete',
  'filesystem_search',
  'bash',
  'http_get',
  'http_post',
  'http_put',
  'http_delete',
  'websearch',
] as const;

/** The eleven built-in tools: the filesystem tools, bash, the HTTP tools, then websearch (as `BUILTIN_TOOL_NAMES` lists them). */
export function builtinToolList(options: BuiltinToolsOptions = {}): Tool[] {
  return [
    ...filesystemTools(options.filesystem),
    bashTool({ ...options.bash, ...(options.sandbox ? { sandbox: options.sandbox } : {}) }),
    ...httpTools(options.http),
    websearchTool(options.websearch),
  ];
}

/**
 * Registers exactly filesystem_read, filesystem_write, filesystem_list, filesystem_delete,
 * filesystem_search, bash, http_get, http_post, http_put, http_delete and websearch (all or nothing).
 */
export function registerAll(registry: Registry, options: BuiltinToolsOptions = {}): void {
  registry.registerBatch(builtinToolList(options));
}
