import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, HubosError } from '../../../core/index.ts';

/** MCP's code for a resource that does not exist (`resources/read`, `resources/subscribe`). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * What a resource's or prompt's own failure answers: a missing thing (a 404 code) as not found, a
 * caller's mistake (a 4xx code) as invalid params, anything else as an internal error, each with
 * the message saying what went wrong while `doing`.
 */
export function toMcpError(error: unknown, doing: string): McpError {
  if (error instanceof McpError) return error;
  const message = `${doing} failed: ${errorMessage(error)}`;
  if (HubosError.is(error)) {
    if (error.status === 404) return new McpError(RESOURCE_NOT_FOUND, message);
    if (error.status < 500) return new McpError(ErrorCode.InvalidParams, message);
  }
  return new McpError(ErrorCode.InternalError, message);
}
