import { describe, expect, it, vi } from 'vitest';
import {
  createSandbox,
  defineTool,
  executeTool,
  MemoryStore,
  Registry,
  type ToolCallEnv,
  type ToolHandler,
  type ToolResult,
} from '../../core/index.ts';
import { makeTool } from './helpers.ts';

function env(overrides: Partial<ToolCallEnv> = {}): ToolCallEnv {
  return {
    signal: new AbortController().signal,
    agentId: 'agent-1',
    sandbox: createSandbox('/tmp/workspace'),
    store: new MemoryStore(),
    ...overrides,
  };
}

const countSchema = {
  type: 'object',
  properties: {
    count: { type: 'integer', default: 1 },
    label: { type: 'string', default: 'item' },
  },
  additionalProperties: false,
} as const;

function registryWith(handler: ToolHandler, name = 'counter'): Registry {
  const registry = new Registry();
  registry.register(makeTool({ name, inputSchema: countSchema, handler }));
  return registry;
}

function errorOf(result: ToolResult) {
  if (result.ok) throw new Error(`expected an error result, got output ${JSON.stringify(result.output)}`);
  return result.error;
}

describe('executeTool: input checks', () => {
  it('never calls the handler with invalid input, and returns TOOL_INPUT_INVALID naming the field', async () => {
    const handler = vi.fn();
    const result = await executeTool(registryWith(handler), 'counter', { count: '3' }, env());
    expect(handler).not.toHaveBeenCalled();
    const error = errorOf(result);
    expect(error.code).toBe('TOOL_INPUT_INVALID');
    expect(error.message).toContain('"count" must be integer, got string "3"');
  });

  it('rejects unknown fields when the schema forbids them, without calling the handler', async () => {
    const handler = vi.fn();
    const result = await executeTool(registryWith(handler), 'counter', { count: 1, extra: true }, env());
    expect(handler).not.toHaveBeenCalled();
    expect(errorOf(result).message).toContain('unknown property "extra"');
  });

  it('passes JSON numbers through as numbers', async () => {
    const handler = vi.fn((_ctx, tc) => tc.input.count);
    const result = await executeTool(registryWith(handler), 'counter', JSON.parse('{"count": 42}'), env());
    expect(result).toEqual({ ok: true, output: 42 });
  });

  it('applies schema defaults before the handler runs', async () => {
    const seen: unknown[] = [];
    const registry = registryWith((_ctx, tc) => {
      seen.push(tc.input);
    });
    await executeTool(registry, 'counter', { count: 5 }, env());
    await executeTool(registry, 'counter', undefined, env());
    expect(seen).toEqual([
      { count: 5, label: 'item' },
      { count: 1, label: 'item' },
    ]);
  });

  it("does not mutate the caller's input object, with defaults or with a handler that writes to it", async () => {
    const registry = registryWith((_ctx, tc) => {
      (tc.input as Record<string, unknown>).count = 999;
      return 'done';
    });
    const given = { count: 2 };
    const result = await executeTool(registry, 'counter', given, env());
    expect(result).toEqual({ ok: true, output: 'done' });
    expect(given).toEqual({ count: 2 });
  });

  it('returns TOOL_NOT_FOUND for an unknown tool, naming it and the known ones', async () => {
    const error = errorOf(await executeTool(registryWith(vi.fn()), 'countr', {}, env()));
    expect(error.code).toBe('TOOL_NOT_FOUND');
    expect(error.message).toContain('"countr"');
    expect(error.message).toContain('counter');
  });

  it('returns an error result for input that is not JSON data instead of throwing', async () => {
    const handler = vi.fn();
    const result = await executeTool(registryWith(handler), 'counter', { count: 1, label: () => 'x' }, env());
    expect(handler).not.toHaveBeenCalled();
    expect(errorOf(result).code).toBe('TOOL_INPUT_INVALID');
  });
});

describe('executeTool: handler results', () => {
  it('returns the handler output as is', async () => {
    const output = { rows: [1, 2], note: 'ok' };
    const result = await executeTool(
      registryWith(async () => output),
      'counter',
      {},
      env(),
    );
    expect(result).toEqual({ ok: true, output });
    expect(result.ok && result.output).toBe(output);
  });

  it('allows a handler that returns nothing', async () => {
    expect(
      await executeTool(
        registryWith(() => undefined),
        'counter',
        {},
        env(),
      ),
    ).toEqual({
      ok: true,
      output: undefined,
    });
  });

  it('turns a handler that throws into a TOOL_FAILED result naming the tool and the cause', async () => {
    const registry = registryWith(() => {
      throw new Error('disk full');
    });
    const error = errorOf(await executeTool(registry, 'counter', {}, env()));
    expect(error).toEqual({ code: 'TOOL_FAILED', message: 'tool "counter" failed: disk full' });
  });

  it('turns a rejected promise into a TOOL_FAILED result', async () => {
    const registry = registryWith(async () => {
      throw new TypeError('bad thing');
    });
    expect(errorOf(await executeTool(registry, 'counter', {}, env())).message).toBe(
      'tool "counter" failed: bad thing',
    );
  });

  it('describes thrown non-Errors readably, never as [object Object]', async () => {
    const throwsObject = registryWith(() => {
      throw { reason: 'quota' };
    });
    const throwsString = registryWith(() => {
      throw 'plain text';
    });
    expect(errorOf(await executeTool(throwsObject, 'counter', {}, env())).message).toBe(
      'tool "counter" failed: {"reason":"quota"}',
    );
    expect(errorOf(await executeTool(throwsString, 'counter', {}, env())).message).toBe(
      'tool "counter" failed: plain text',
    );
  });
});

describe('executeTool: what the handler receives', () => {
  it('passes the call signal, agent id, sandbox, store and metadata', async () => {
    const controller = new AbortController();
    const callEnv = env({ signal: controller.signal, metadata: { runId: 'r1' } });
    const handler = vi.fn();
    await executeTool(registryWith(handler), 'counter', { count: 4 }, callEnv);
    expect(handler).toHaveBeenCalledTimes(1);
    const [ctx, tc] = handler.mock.calls[0]!;
    expect(ctx.signal).toBe(controller.signal);
    expect(tc).toEqual({
      input: { count: 4, label: 'item' },
      agentId: 'agent-1',
      sandbox: callEnv.sandbox,
      store: callEnv.store,
      metadata: { runId: 'r1' },
      addUsage: expect.any(Function),
      progress: expect.any(Function),
      log: expect.any(Function),
      elicit: expect.any(Function),
      sample: expect.any(Function),
    });
    expect(tc.store).toBe(callEnv.store);
  });

  it('gives tc.progress and tc.addUsage that do nothing when the env has none (outside a run)', async () => {
    const handler = vi.fn<ToolHandler>((_ctx, tc) => {
      tc.progress({ step: 1 });
      tc.addUsage({ inputTokens: 3 });
      return 'done';
    });
    expect(await executeTool(registryWith(handler), 'counter', {}, env())).toEqual({
      ok: true,
      output: 'done',
    });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("passes the env's progress and addUsage on as tc.progress and tc.addUsage", async () => {
    const progress = vi.fn();
    const addUsage = vi.fn();
    const handler: ToolHandler = (_ctx, tc) => {
      tc.progress('half');
      tc.addUsage({ outputTokens: 2 });
    };
    await executeTool(registryWith(handler), 'counter', {}, env({ progress, addUsage }));
    expect(progress).toHaveBeenCalledWith('half');
    expect(addUsage).toHaveBeenCalledWith({ outputTokens: 2 });
  });

  it('gives an empty metadata object when the call has none', async () => {
    const handler = vi.fn();
    await executeTool(registryWith(handler), 'counter', {}, env());
    expect(handler.mock.calls[0]![1].metadata).toEqual({});
  });

  it('lets a handler observe cancellation through the signal', async () => {
    const controller = new AbortController();
    const registry = new Registry();
    registry.register(
      defineTool({
        name: 'wait',
        description: 'Waits until cancelled.',
        inputSchema: { type: 'object', properties: {} },
        handler: ({ signal }) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => reject(new Error(`cancelled: ${String(signal.reason)}`)));
          }),
      }),
    );
    const pending = executeTool(registry, 'wait', {}, env({ signal: controller.signal }));
    controller.abort('user stop');
    expect(errorOf(await pending)).toEqual({
      code: 'TOOL_FAILED',
      message: 'tool "wait" failed: cancelled: user stop',
    });
  });
});
