import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../../../core/index.ts';

/** A failed call, as MCP reports it to the model: a result with `isError`, not a protocol error. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A tool's result as MCP's: its error, its rich parts as they are, or its output as content. */
export function callToolResult(result: ToolResult): CallToolResult {
  if (!result.ok)
    // A guardrail's trip says so by its code, as the other faces do.
    return errorResult(
      result.error.code === 'GUARDRAIL_TRIPPED'
        ? `${result.error.message} [GUARDRAIL_TRIPPED]`
        : result.error.message,
    );
  if (!result.content) return outputResult(result.output);
  // A rich result: `output` is its structured data when it gave some, else its parts in words.
  return {
    content: result.content as CallToolResult['content'],
    ...(isPlainObject(result.output) ? { structuredContent: result.output } : {}),
  };
}

/**
 * A tool's output as MCP content: strings as they are, anything else as JSON; a plain object is
 * also the `structuredContent` (its JSON is the text, as the spec asks for older clients).
 */
export function outputResult(output: unknown): CallToolResult {
  if (output === undefined) return { content: [] };
  if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
  let json: string | undefined;
  try {
    json = JSON.stringify(output);
  } catch {
    // Cycles and BigInts cannot travel as JSON: the model still gets something readable.
    return { content: [{ type: 'text', text: String(output) }] };
  }
  return {
    content: [{ type: 'text', text: json ?? String(output) }],
    ...(isPlainObject(output) ? { structuredContent: output } : {}),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
