// context.toolResults: on by default, off with false, the agent's over the config's; bad values
// are refused at boot saying what to change.
import { afterEach, describe, expect, it } from 'vitest';
import { type Kernel, type Message, type ModelRequest, type Tool, toolOutput } from '../../core/index.ts';
import { ScriptedModel } from '../../testing/index.ts';
import { bootAgent, makeTool } from '../agent/helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  for (const kernel of kernels.splice(0)) await kernel.close();
});

const sized = (chars: number): Tool => makeTool('dump', () => 'word '.repeat(chars / 5));
const lastTool = (request: ModelRequest) =>
  request.messages.findLast((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool')!;
const names = (request: ModelRequest) => request.tools.map((tool) => tool.name);

async function runWith(setup: Parameters<typeof bootAgent>[0], sessionId?: string) {
  const booted = await bootAgent({ script: [{ toolCalls: [{ name: 'dump' }] }, 'done'], ...setup });
  kernels.push(booted.kernel);
  await booted.agent.run('go', { principal: 'alice', ...(sessionId ? { sessionId } : {}) });
  return booted;
}

describe('context.toolResults', () => {
  it('is on by default: a result over 20,000 tokens is cut, one under is sent whole', async () => {
    const big = await runWith({ tools: [sized(200_000)] });
    expect(lastTool(big.model.requests[1]!).content.length).toBeLessThan(8_000);
    expect(names(big.model.requests[1]!)).toContain('read_result');
    const small = await runWith({ tools: [sized(50_000)] });
    expect(lastTool(small.model.requests[1]!).content.length).toBe(50_000);
    expect(names(small.model.requests[1]!)).toEqual(['dump']);
  });

  it('sends every result whole with false, the agent overriding the config', async () => {
    const off = await runWith({ tools: [sized(200_000)], config: { context: { toolResults: false } } });
    expect(lastTool(off.model.requests[1]!).content.length).toBe(200_000);
    const on = await runWith({
      tools: [sized(10_000)],
      config: { context: { toolResults: false } },
      template: { context: { toolResults: { maxTokens: 1_000, headTokens: 100 } } },
    });
    const cut = lastTool(on.model.requests[1]!).content;
    expect(cut).toContain('Read more with the read_result tool');
    expect(cut.indexOf('\n\n[Result cut: ')).toBeLessThanOrEqual(350);
  });

  it('cuts a rich result by its text and drops its parts, which would carry it whole', async () => {
    const rich = makeTool('dump', () =>
      toolOutput({ content: [{ type: 'text', text: 'word '.repeat(40_000) }] }),
    );
    const { model } = await runWith({ tools: [rich] });
    const message = lastTool(model.requests[1]!);
    expect(message.content.length).toBeLessThan(8_000);
    expect(message).not.toHaveProperty('parts');
  });

  it('offers read_result from the start of a later run whose session holds a cut result', async () => {
    const first = await runWith({ tools: [sized(200_000)] }, 's1');
    first.model.push('again');
    await first.agent.run('more', { principal: 'alice', sessionId: 's1' });
    expect(names(first.model.requests[2]!)).toEqual(['dump', 'read_result']);
  });

  it("refuses a head not shorter than the limit, a bad value, and a tool that takes the read tool's name", async () => {
    const model = new ScriptedModel();
    await expect(
      bootAgent({ template: { model, context: { toolResults: { maxTokens: 1_000, headTokens: 1_000 } } } }),
    ).rejects.toThrow(
      'agents.assistant.context.toolResults: headTokens (1000) must be less than maxTokens (1000): the model gets the head of a result that passed maxTokens. Lower headTokens or raise maxTokens.',
    );
    await expect(
      bootAgent({ config: { context: { toolResults: { maxTokens: 'many' } } } as never }),
    ).rejects.toThrow(/context\.toolResults/);
    const clash = makeTool('read_result');
    await expect(bootAgent({ tools: [clash] })).rejects.toThrow(
      /agent "assistant" has a tool named "read_result".*rename that tool, or set agents\.assistant\.context\.toolResults to false/,
    );
    const allowed = await bootAgent({
      tools: [clash],
      template: { tools: ['read_result'], context: { toolResults: false } },
    });
    kernels.push(allowed.kernel);
  });
});
