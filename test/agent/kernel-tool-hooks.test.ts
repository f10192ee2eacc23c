import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel, Logger, Plugin } from '../../core/index.ts';
import { bootAgent, makeTool } from './helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** Taps every tool-call hook of the kernel and of each agent, writing down the order they run in. */
function recorder(order: string[], options: { kernelDecides?: (name: string) => unknown } = {}): Plugin {
  return {
    name: 'recorder',
    apply(kernel) {
      kernel.hooks.beforeToolCall.tap('recorder', ({ call }) => {
        order.push(`kernel.before ${call.name}`);
        return options.kernelDecides?.(call.name) as never;
      });
      kernel.hooks.wrapToolCall.tapPromise('recorder', async (ctx, next) => {
        order.push(`kernel.wrap> ${ctx.call.name}`);
        // What the kernel's wrap hands on is what the agent's wrap and the handler see.
        const result = await next({ ...ctx, call: { ...ctx.call, input: { word: 'from-kernel' } } });
        order.push(`kernel.wrap< ${ctx.call.name}`);
        return result;
      });
      kernel.hooks.toolError.tap('recorder', ({ call }) => {
        order.push(`kernel.error ${call.name}`);
      });
      kernel.hooks.afterToolCall.tap('recorder', ({ call }) => {
        order.push(`kernel.after ${call.name}`);
      });
      kernel.hooks.agentCreated.tap('recorder', ({ agent }) => {
        agent.hooks.beforeToolCall.tap('recorder', ({ call }) => {
          order.push(`agent.before ${call.name}`);
          return undefined;
        });
        agent.hooks.wrapToolCall.tapPromise('recorder', async (ctx, next) => {
          order.push(`agent.wrap> ${ctx.call.name} ${JSON.stringify(ctx.call.input)}`);
          const result = await next(ctx);
          order.push(`agent.wrap< ${ctx.call.name}`);
          return result;
        });
        agent.hooks.toolError.tap('recorder', ({ call }) => {
          order.push(`agent.error ${call.name}`);
        });
        agent.hooks.afterToolCall.tap('recorder', ({ call }) => {
          order.push(`agent.after ${call.name}`);
        });
      });
    },
  };
}

const say = makeTool('say', (_ctx, tc) => `said ${String(tc.input.word)}`, {
  inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
});
const drop = makeTool('drop', () => 'dropped', { permissions: ['fs:delete'] });

describe('kernel tool-call hooks around an agent’s own', () => {
  it('run the kernel’s taps outside the agent’s: before, wrap (nested), then error and after inside-out', async () => {
    const order: string[] = [];
    const { kernel, agent } = await bootAgent({
      tools: [say],
      plugins: [recorder(order)],
      script: [{ toolCalls: [{ name: 'say', input: { word: 'from-model' } }] }, 'done'],
    });
    kernels.push(kernel);
    const result = await agent.run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: 'said from-kernel' });
    expect(order).toEqual([
      'kernel.before say',
      'agent.before say',
      'kernel.wrap> say',
      'agent.wrap> say {"word":"from-kernel"}',
      'agent.wrap< say',
      'kernel.wrap< say',
      'agent.after say',
      'kernel.after say',
    ]);
  });

  it('let a kernel denial skip the agent’s gate and the tool; a policy denial comes before every tap', async () => {
    const order: string[] = [];
    const { kernel, agent } = await bootAgent({
      tools: [say, drop],
      config: { permissions: { deny: ['fs:delete'] } },
      plugins: [
        recorder(order, { kernelDecides: (name) => (name === 'say' ? { deny: 'quiet' } : undefined) }),
      ],
      script: [
        { toolCalls: [{ name: 'say', input: { word: 'x' } }] },
        { toolCalls: [{ name: 'drop' }] },
        'done',
      ],
    });
    kernels.push(kernel);
    const result = await agent.run('go');
    expect(result.toolCalls.map((call) => call.error?.message)).toEqual([
      'the call to "say" was denied: quiet',
      "permission denied: fs:delete (rule deny 'fs:delete')",
    ]);
    expect(order).toEqual([
      'kernel.before say',
      'agent.error say',
      'kernel.error say',
      'agent.after say',
      'kernel.after say',
      // Refused by the policy: no gate tap heard of it, the error and after taps did.
      'agent.error drop',
      'kernel.error drop',
      'agent.after drop',
      'kernel.after drop',
    ]);
  });

  it('keep a call’s result when a kernel afterToolCall tap throws, and say so in the log', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => warnings.push(message),
      error: () => undefined,
    };
    const failing: Plugin = {
      name: 'failing-audit',
      apply(kernel) {
        kernel.hooks.afterToolCall.tap('failing-audit', () => {
          throw new Error('audit store is away');
        });
      },
    };
    const { kernel, agent } = await bootAgent({
      tools: [say],
      plugins: [failing],
      options: { logger },
      script: [{ toolCalls: [{ name: 'say', input: { word: 'hi' } }] }, 'done'],
    });
    kernels.push(kernel);
    const result = await agent.run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: 'said hi' });
    expect(warnings.join('\n')).toContain('kernel hook "afterToolCall"');
    expect(warnings.join('\n')).toContain('audit store is away');
    expect(warnings.join('\n')).toContain('failing-audit');
  });
});
