import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** Items per page of a list answer (`resources/list`, `prompts/list`...). */
export const PAGE_SIZE = 200;

/**
 * One page of a list, MCP's way: the cursor is where the page starts (opaque to the client), and
 * `nextCursor` is set while more follow.
 */
export function page<T>(
  items: readonly T[],
  cursor: string | undefined,
): { items: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isSafeInteger(start) || start < 0 || String(start) !== (cursor ?? '0'))
    throw new McpError(
      ErrorCode.InvalidParams,
      `invalid cursor ${JSON.stringify(cursor)}: pass the nextCursor of the previous page, or none for the first`,
    );
  const end = start + PAGE_SIZE;
  return { items: items.slice(start, end), ...(end < items.length ? { nextCursor: String(end) } : {}) };
}
