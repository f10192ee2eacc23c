import { afterEach, describe, expect, it, vi } from 'vitest';
import type {
  AgentHandle,
  Kernel,
  Message,
  ModelResponse,
  Plugin,
  RunContext,
  RunResult,
  ToolResult,
} from '../../core/index.ts';
import { expectHubosRejection } from '../core/helpers.ts';
import { bootAgent, makeTool } from './helpers.ts';

const kernels: Kernel[] = [];
async function setup(...args: Parameters<typeof bootAgent>) {
  const booted = await bootAgent(...args);
  kernels.push(booted.kernel);
  return booted;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** A plugin that taps the hooks of every agent created. */
function agentPlugin(name: string, tap: (agent: AgentHandle) => void): Plugin {
  return {
    name,
    apply(kernel) {
      kernel.hooks.agentCreated.tap(name, ({ agent }) => tap(agent));
    },
  };
}

const lastToolContent = (messages: Message[]) => {
  const last = messages.at(-1)!;
  expect(last.role).toBe('tool');
  return last.content;
};

describe('agent hooks: beforeToolCall', () => {
  it('denies a call: the model reads why, the handler never runs', async () => {
    const handler = vi.fn(() => 'ran');
    const { agent, model } = await setup({
      tools: [makeTool('rm', handler)],
      plugins: [
        agentPlugin('guard', (a) =>
          a.hooks.beforeToolCall.tap('guard', ({ call }) =>
            call.name === 'rm' ? { deny: 'deleting is not allowed' } : undefined,
          ),
        ),
      ],
      script: [{ toolCalls: [{ name: 'rm' }] }, 'ok'],
    });
    const result = await agent.run('delete it');
    expect(handler).not.toHaveBeenCalled();
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_DENIED' } });
    expect(lastToolContent(model.requests[1]!.messages)).toBe(
      'Error: the call to "rm" was denied: deleting is not allowed',
    );
  });

  it('answers a call with a given result instead of running the handler', async () => {
    const handler = vi.fn(() => 'fresh');
    const { agent, model } = await setup({
      tools: [makeTool('weather', handler)],
      plugins: [
        agentPlugin('cache', (a) => a.hooks.beforeToolCall.tap('cache', () => ({ result: { temp: 21 } }))),
      ],
      script: [{ toolCalls: [{ name: 'weather' }] }, 'ok'],
    });
    const result = await agent.run('weather?');
    expect(handler).not.toHaveBeenCalled();
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: { temp: 21 } });
    expect(lastToolContent(model.requests[1]!.messages)).toBe('{"temp":21}');
  });

  it('lets the call run when every tap returns nothing', async () => {
    const seen: string[] = [];
    const { agent } = await setup({
      tools: [makeTool('echo', () => 'echoed')],
      plugins: [
        agentPlugin('watch', (a) =>
          a.hooks.beforeToolCall.tap('watch', ({ call }) => void seen.push(call.name)),
        ),
      ],
      script: [{ toolCalls: [{ name: 'echo' }] }, 'ok'],
    });
    const result = await agent.run('go');
    expect(seen).toEqual(['echo']);
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: 'echoed' });
  });
});

describe('agent hooks: wrap hooks', () => {
  it('compose wrapToolCall taps with the earliest outermost', async () => {
    const log: string[] = [];
    const wrap = (name: string) =>
      agentPlugin(name, (a) =>
        a.hooks.wrapToolCall.tapPromise(name, async (ctx, next) => {
          log.push(`${name} before`);
          const result = await next(ctx);
          log.push(`${name} after`);
          return result;
        }),
      );
    const { agent } = await setup({
      tools: [makeTool('work', () => void log.push('handler'))],
      plugins: [wrap('outer'), wrap('inner')],
      script: [{ toolCalls: [{ name: 'work' }] }, 'ok'],
    });
    await agent.run('go');
    expect(log).toEqual(['outer before', 'inner before', 'handler', 'inner after', 'outer after']);
  });

  it('lets wrapToolCall change the input and the result', async () => {
    const { agent } = await setup({
      tools: [
        makeTool('shout', (_ctx, tc) => String(tc.input.text).toUpperCase(), {
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        }),
      ],
      plugins: [
        agentPlugin('rewrite', (a) =>
          a.hooks.wrapToolCall.tapPromise('rewrite', async (ctx, next) => {
            const result = await next({ ...ctx, call: { ...ctx.call, input: { text: 'changed' } } });
            return result.ok ? { ok: true, output: `${result.output}!` } : result;
          }),
        ),
      ],
      script: [{ toolCalls: [{ name: 'shout', input: { text: 'original' } }] }, 'ok'],
    });
    const result = await agent.run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: 'CHANGED!' });
  });

  it('compose wrapModelCall taps with the earliest outermost, and can replace the response', async () => {
    const log: string[] = [];
    const wrap = (name: string) =>
      agentPlugin(name, (a) =>
        a.hooks.wrapModelCall.tapPromise(name, async (ctx, next) => {
          log.push(`${name} before ${ctx.step}`);
          const response = await next(ctx);
          log.push(`${name} after ${ctx.step}`);
          return name === 'inner'
            ? {
                ...response,
                message: { ...response.message, content: `${response.message.content} (checked)` },
              }
            : response;
        }),
      );
    const { agent } = await setup({ plugins: [wrap('outer'), wrap('inner')], script: ['Hello.'] });
    const result = await agent.run('go');
    expect(log).toEqual(['outer before 1', 'inner before 1', 'inner after 1', 'outer after 1']);
    expect(result.text).toBe('Hello. (checked)');
  });

  it('lets a wrapModelCall tap answer without calling the model', async () => {
    const canned: ModelResponse = {
      message: { role: 'assistant', content: 'from cache' },
      finishReason: 'stop',
      usage: { inputTokens: 0, outputTokens: 0 },
    };
    const { agent, model } = await setup({
      plugins: [agentPlugin('cache', (a) => a.hooks.wrapModelCall.tapPromise('cache', async () => canned))],
      script: [],
    });
    expect((await agent.run('go')).text).toBe('from cache');
    expect(model.requests).toHaveLength(0);
  });
});

describe('agent hooks: around model calls and runs', () => {
  it('lets beforeModelCall change the request', async () => {
    const { agent, model } = await setup({
      template: { instructions: 'Be brief.' },
      plugins: [
        agentPlugin('persona', (a) =>
          a.hooks.beforeModelCall.tap('persona', ({ request }) => {
            request.system = `${request.system} Speak like a pirate.`;
            request.messages = [...request.messages, { role: 'user', content: 'Arr.' }];
          }),
        ),
      ],
      script: ['Ahoy.'],
    });
    await agent.run('Hi');
    expect(model.requests[0]!.system).toBe('Be brief. Speak like a pirate.');
    expect(model.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Arr.' });
  });

  it('runs the hooks of one run in order, with what each should see', async () => {
    const log: string[] = [];
    let runContext: RunContext | undefined;
    let afterRun: RunResult | undefined;
    const results: ToolResult[] = [];
    const { agent } = await setup({
      tools: [
        makeTool('good', () => 'fine'),
        makeTool('bad', () => {
          throw new Error('broken');
        }),
      ],
      plugins: [
        agentPlugin('recorder', (a) => {
          a.hooks.beforeRun.tap('r', (run) => {
            runContext = run;
            log.push('beforeRun');
          });
          a.hooks.beforeModelCall.tap('r', ({ step }) => void log.push(`beforeModelCall ${step}`));
          a.hooks.afterModelCall.tap(
            'r',
            ({ step, response }) => void log.push(`afterModelCall ${step} ${response.finishReason}`),
          );
          a.hooks.beforeToolCall.tap('r', ({ call }) => void log.push(`beforeToolCall ${call.name}`));
          a.hooks.afterToolCall.tap('r', ({ call, result }) => {
            results.push(result);
            log.push(`afterToolCall ${call.name}`);
          });
          a.hooks.toolError.tap(
            'r',
            ({ call, error }) => void log.push(`toolError ${call.name} ${error.code}`),
          );
          a.hooks.afterRun.tap('r', ({ result }) => {
            afterRun = result;
            log.push('afterRun');
          });
        }),
      ],
      script: [{ toolCalls: [{ name: 'good' }] }, { toolCalls: [{ name: 'bad' }] }, 'done'],
    });
    const result = await agent.run('go', { sessionId: 's' });
    expect(log).toEqual([
      'beforeRun',
      'beforeModelCall 1',
      'afterModelCall 1 tool-calls',
      'beforeToolCall good',
      'afterToolCall good',
      'beforeModelCall 2',
      'afterModelCall 2 tool-calls',
      'beforeToolCall bad',
      'toolError bad TOOL_FAILED',
      'afterToolCall bad',
      'beforeModelCall 3',
      'afterModelCall 3 stop',
      'afterRun',
    ]);
    expect(runContext).toMatchObject({
      agent: 'assistant',
      sessionId: 's',
      input: 'go',
      runId: result.runId,
    });
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect(afterRun).toBe(result);
  });

  it('fires afterRun for failed and cancelled runs too', async () => {
    const seen: string[] = [];
    const { agent } = await setup({
      plugins: [
        agentPlugin('recorder', (a) =>
          a.hooks.afterRun.tap('r', ({ result }) => void seen.push(result.status)),
        ),
      ],
      script: [{ error: 'boom' }],
    });
    await expectHubosRejection(agent.run('go'), 'MODEL_HTTP_ERROR');
    await agent.run('go', { signal: AbortSignal.abort() });
    expect(seen).toEqual(['failed', 'cancelled']);
  });
});

describe('agent hooks: errors name the plugin and the hook', () => {
  it('turns a throwing beforeToolCall tap into an error result the model reads', async () => {
    const handler = vi.fn(() => 'ran');
    const { agent, model } = await setup({
      tools: [makeTool('work', handler)],
      plugins: [
        agentPlugin('flaky', (a) =>
          a.hooks.beforeToolCall.tap('flaky', () => {
            throw new Error('policy server down');
          }),
        ),
      ],
      script: [{ toolCalls: [{ name: 'work' }] }, 'ok'],
    });
    const result = await agent.run('go');
    expect(result.status).toBe('completed');
    expect(handler).not.toHaveBeenCalled();
    expect(lastToolContent(model.requests[1]!.messages)).toBe(
      'Error: plugin "flaky" failed in hook "beforeToolCall": policy server down',
    );
  });

  it('attributes a throwing wrapToolCall tap, but not the tool failing inside it', async () => {
    const { agent, model } = await setup({
      tools: [
        makeTool('inner', () => {
          throw new Error('inner broke');
        }),
        makeTool('other', () => 'fine'),
      ],
      plugins: [
        agentPlugin('wrapper', (a) =>
          a.hooks.wrapToolCall.tapPromise('wrapper', async (ctx, next) => {
            const result = await next(ctx);
            if (ctx.call.name === 'other') throw new Error('wrapper broke');
            return result;
          }),
        ),
      ],
      script: [{ toolCalls: [{ name: 'inner' }, { name: 'other' }] }, 'ok'],
    });
    await agent.run('go');
    const contents = model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(contents).toEqual([
      'Error: tool "inner" failed: inner broke',
      'Error: plugin "wrapper" failed in hook "wrapToolCall": wrapper broke',
    ]);
  });

  it('fails the run when a beforeModelCall tap throws, naming plugin and hook', async () => {
    const { agent } = await setup({
      plugins: [
        agentPlugin('broken', (a) =>
          a.hooks.beforeModelCall.tap('broken', () => {
            throw new Error('no budget left');
          }),
        ),
      ],
      script: ['never'],
    });
    const error = await expectHubosRejection(agent.run('go'), 'HOOK_FAILED');
    expect(error.message).toBe('plugin "broken" failed in hook "beforeModelCall": no budget left');
  });

  it('leaves a model error passing through a wrapModelCall tap unattributed', async () => {
    const { agent } = await setup({
      plugins: [
        agentPlugin('passive', (a) => a.hooks.wrapModelCall.tapPromise('passive', (ctx, next) => next(ctx))),
      ],
      script: [{ error: 'rate limited' }],
    });
    const error = await expectHubosRejection(agent.run('go'), 'MODEL_HTTP_ERROR');
    expect(error.message).toBe('rate limited');
  });

  it('fails the run when an afterRun tap throws', async () => {
    const { agent } = await setup({
      plugins: [
        agentPlugin('audit', (a) =>
          a.hooks.afterRun.tap('audit', () => {
            throw new Error('audit log full');
          }),
        ),
      ],
      script: ['ok'],
    });
    const error = await expectHubosRejection(agent.run('go'), 'HOOK_FAILED');
    expect(error.message).toBe('plugin "audit" failed in hook "afterRun": audit log full');
  });
});

describe('kernel hooks around agents', () => {
  it('lets an agentCreate tap change the spec', async () => {
    const extra: Plugin = {
      name: 'house-style',
      apply(kernel) {
        kernel.hooks.agentCreate.tap('house-style', (spec) => ({
          ...spec,
          instructions: `${spec.instructions ?? ''} Cite sources.`.trim(),
          tools: [...(spec.tools ?? []), 'cite'],
        }));
      },
    };
    const { agent, model } = await setup({
      tools: [makeTool('search'), makeTool('cite')],
      template: { tools: ['search'], instructions: 'Be brief.' },
      plugins: [extra],
      script: ['ok'],
    });
    expect(agent.spec.instructions).toBe('Be brief. Cite sources.');
    await agent.run('go');
    expect(model.requests[0]!.system).toBe('Be brief. Cite sources.');
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['search', 'cite']);
  });

  it('lets resolveTools narrow what an agent sees', async () => {
    const narrow: Plugin = {
      name: 'narrow',
      apply(kernel) {
        kernel.hooks.resolveTools.tap('narrow', (ctx) => ({
          ...ctx,
          tools: ctx.tools.filter((t) => t.name !== 'secret'),
        }));
      },
    };
    const { agent } = await setup({ tools: [makeTool('open'), makeTool('secret')], plugins: [narrow] });
    expect(agent.tools.map((t) => t.name)).toEqual(['open']);
  });

  it('fires agentDestroy on destroyAgent and on close', async () => {
    const destroyed: string[] = [];
    const watcher: Plugin = {
      name: 'watcher',
      apply(kernel) {
        kernel.hooks.agentDestroy.tap('watcher', ({ agent }) => void destroyed.push(agent.id));
      },
    };
    const { kernel, model } = await setup({ plugins: [watcher], script: [] });
    await kernel.createAgent({ name: 'second', model });
    await kernel.createAgent({ name: 'third', model });
    await kernel.destroyAgent('second');
    expect(destroyed).toEqual(['second']);
    await kernel.close();
    expect(destroyed.sort()).toEqual(['assistant', 'second', 'third']);
    expect(kernel.listAgents()).toEqual([]);
  });

  it('does not keep an agent whose agentCreated tap fails', async () => {
    const { kernel, model } = await setup({ script: [] });
    let fail = false;
    kernel.hooks.agentCreated.tap('picky', () => {
      if (fail) throw new Error('nope');
    });
    fail = true;
    await expect(kernel.createAgent({ name: 'doomed', model })).rejects.toThrow('nope');
    expect(kernel.getAgent('doomed')).toBeUndefined();
  });

  it('gives each plugin its own view of the agent hooks: taps are attributed to it', async () => {
    const { kernel } = await setup({
      plugins: [
        agentPlugin('first', (a) => a.hooks.beforeRun.tap('t', () => {})),
        agentPlugin('second', (a) => a.hooks.beforeRun.tap('t', () => {})),
      ],
    });
    const taps = kernel.agent('assistant').hooks.beforeRun.taps as readonly { plugin?: string }[];
    expect(taps.map((tap) => tap.plugin)).toEqual(['first', 'second']);
  });
});
