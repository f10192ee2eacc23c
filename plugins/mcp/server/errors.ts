import { defineErrorCodes } from '../../../core/index.ts';

/** The codes of what the mcp plugin serves (its workspace files), with their HTTP statuses. */
export const MCP_SERVE_ERROR_CODES = defineErrorCodes('mcp', {
  // A workspace file's path that leaves the workspace (`..`, absolute, a symbolic link out of it).
  RESOURCE_OUTSIDE_WORKSPACE: 403,
  // A workspace path that cannot be served as a resource: a folder, a device, too large, hard-linked.
  RESOURCE_UNREADABLE: 400,
});
