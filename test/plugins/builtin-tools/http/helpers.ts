import type { Tool, ToolResult } from 'hubos';
import { invokeTool } from 'hubos/testing';
import { expect } from 'vitest';
import type { HttpToolResult } from '../../../../plugins/builtin-tools/http/index.ts';

/** Calls one of the http_* tools by name. */
export function call(tools: Tool[], name: string, input: Record<string, unknown>): Promise<ToolResult> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return invokeTool(tool, input);
}

/** The output of a call that must have succeeded. */
export function output(result: ToolResult): HttpToolResult {
  if (!result.ok) expect.fail(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.output as HttpToolResult;
}

/** The error message of a call that must have failed. */
export function failure(result: ToolResult): string {
  if (result.ok) expect.fail(`expected a failure, got ${JSON.stringify(result.output)}`);
  return result.error.message;
}
