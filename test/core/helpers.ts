import { expect } from 'vitest';
import { HubosError, type HubosErrorCode, type Tool } from '../../core/index.ts';

/** Runs `fn`, expects it to throw a HubosError with `code`, and returns that error for more checks. */
export function expectHubosError(fn: () => unknown, code: HubosErrorCode): HubosError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  return checkError(thrown, code);
}

/** Awaits `promise` (or calls `fn`), expects a HubosError with `code`, and returns it. */
export async function expectHubosRejection(
  work: Promise<unknown> | (() => Promise<unknown>),
  code: HubosErrorCode,
): Promise<HubosError> {
  let thrown: unknown;
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    thrown = error;
  }
  return checkError(thrown, code);
}

function checkError(thrown: unknown, code: HubosErrorCode): HubosError {
  expect(thrown, 'expected a HubosError to be thrown').toBeInstanceOf(HubosError);
  const error = thrown as HubosError;
  expect(error.code, error.message).toBe(code);
  return error;
}

/** A valid tool to start from; tests override one field at a time. */
export function makeTool(overrides: Record<string, unknown> = {}): Tool {
  return {
    name: 'echo',
    description: 'Echoes its input back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    handler: (_ctx: unknown, tc: { input: unknown }) => tc.input,
    ...overrides,
  } as Tool;
}

/** A tool object without the named field, for "missing field" cases. */
export function toolWithout(field: keyof Tool): Tool {
  const tool: Record<string, unknown> = { ...makeTool() };
  delete tool[field];
  return tool as unknown as Tool;
}
