import { defineErrorCodes } from '../../core/index.ts';

/** The mcp plugin's own error codes and their HTTP statuses. */
export const MCP_ERROR_CODES = defineErrorCodes('mcp', {
  MCP_SERVER_NOT_FOUND: 404,
});
