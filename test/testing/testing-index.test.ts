import { describe, expect, it } from 'vitest';
import { defineTool, MemoryStore } from '../../core/index.ts';
import { bootKernel, invokeTool } from '../../testing/index.ts';

const greet = defineTool({
  name: 'greet',
  description: 'Greets someone.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string' }, punctuation: { type: 'string', default: '!' } },
    required: ['name'],
    additionalProperties: false,
  },
  handler: (_ctx, tc) => `Hello ${tc.input.name}${tc.input.punctuation} (${tc.agentId})`,
});

describe('testing helpers', () => {
  it('bootKernel boots a quiet kernel with an in-memory store', async () => {
    const kernel = await bootKernel();
    expect(kernel.state).toBe('ready');
    expect(kernel.mode).toBe('test');
    expect(kernel.store).toBeInstanceOf(MemoryStore);
    await kernel.close();
    expect(kernel.state).toBe('closed');
  });

  it('invokeTool validates input and applies defaults before the handler', async () => {
    expect(await invokeTool(greet, { name: 'Ada' })).toEqual({ ok: true, output: 'Hello Ada! (test-agent)' });
    expect(await invokeTool(greet, { name: 'Bo', punctuation: '?' }, { agentId: 'me' })).toEqual({
      ok: true,
      output: 'Hello Bo? (me)',
    });
  });

  it('invokeTool returns errors as results', async () => {
    const invalid = await invokeTool(greet, { name: 7 });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    const failing = defineTool({
      name: 'fail',
      description: 'Fails.',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error('nope');
      },
    });
    expect(await invokeTool(failing, {})).toEqual({
      ok: false,
      error: { code: 'TOOL_FAILED', message: 'tool "fail" failed: nope' },
    });
  });

  it('invokeTool passes the signal on to the handler', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const probe = defineTool({
      name: 'probe',
      description: 'Sees its signal.',
      inputSchema: { type: 'object' },
      handler: (ctx) => {
        seen = ctx.signal;
      },
    });
    await invokeTool(probe, {}, { signal: controller.signal });
    expect(seen).toBe(controller.signal);
  });

  it('invokeTool gives a tool tc.progress and tc.addUsage that do nothing outside a run', async () => {
    const reporting = defineTool({
      name: 'reporting',
      description: 'Reports progress and usage as it works.',
      inputSchema: { type: 'object' },
      handler: (_ctx, tc) => {
        tc.progress({ done: 1 });
        tc.progress?.('half');
        tc.addUsage({ inputTokens: 5, outputTokens: 2 });
        return 'finished';
      },
    });
    expect(await invokeTool(reporting, {})).toEqual({ ok: true, output: 'finished' });
    const seen: unknown[] = [];
    const usage: unknown[] = [];
    await invokeTool(reporting, {}, { progress: (data) => seen.push(data), addUsage: (u) => usage.push(u) });
    expect(seen).toEqual([{ done: 1 }, 'half']);
    expect(usage).toEqual([{ inputTokens: 5, outputTokens: 2 }]);
  });
});
