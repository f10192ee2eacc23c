import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineTool, type Kernel, type ModelChunk } from '../../core/index.ts';
import { defaultPlugins } from '../../plugins/defaults.ts';
import offline, { exampleCall, OFFLINE_HELP, OfflineModel } from '../../plugins/models/offline.ts';
import { bootKernel } from '../../testing/index.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

const save = vi.fn((_ctx: unknown, tc: { input: { text: string } }) => ({ saved: tc.input.text }));
const tools = [
  defineTool({
    name: 'notes_add',
    description: 'Adds a note.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: save as never,
  }),
  defineTool({
    name: 'clock_now',
    description: 'The time.',
    inputSchema: { type: 'object' },
    handler: () => 'noon',
  }),
  defineTool({
    name: 'broken',
    description: 'Fails.',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error('out of order');
    },
  }),
];

async function demoAgent(withTools = true) {
  const kernel = await bootKernel({
    config: { model: 'offline', agents: { demo: withTools ? { tools: ['*'] } : {} } },
    plugins: [
      offline(),
      {
        name: 'tools',
        apply(k) {
          k.hooks.registerTools.tap('tools', (registry) => registry.registerBatch(tools));
        },
      },
    ],
  });
  kernels.push(kernel);
  return kernel.agent('demo');
}

describe('offline model', () => {
  it('calls the tool a /command names, with its JSON input, then echoes the result', async () => {
    save.mockClear();
    const agent = await demoAgent();
    const result = await agent.run('/notes_add {"text": "buy milk"}');
    expect(save).toHaveBeenCalledOnce();
    expect(result.toolCalls).toMatchObject([{ name: 'notes_add', input: { text: 'buy milk' }, ok: true }]);
    expect(result).toMatchObject({ status: 'completed', stopReason: 'stop', steps: 2 });
    expect(result.text).toBe('notes_add returned: {"saved":"buy milk"}');
  });

  it('calls a tool with no input as {}', async () => {
    const agent = await demoAgent();
    const result = await agent.run('  /clock_now  ');
    expect(result.toolCalls).toMatchObject([{ name: 'clock_now', input: {}, ok: true, output: 'noon' }]);
    expect(result.text).toBe('clock_now returned: noon');
  });

  it('finds the command on the last line that is one, below other text (a roster, say)', async () => {
    const agent = await demoAgent();
    const result = await agent.run('Team: lead, helper.\n/clock_now {}\nthanks');
    expect(result.toolCalls).toMatchObject([{ name: 'clock_now', input: {}, ok: true }]);
    const plain = await agent.run('Team: lead.\nno command here');
    expect(plain.toolCalls).toEqual([]);
  });

  it('says when a tool failed', async () => {
    const agent = await demoAgent();
    const result = await agent.run('/broken {}');
    expect(result.text).toBe('broken failed: Error: tool "broken" failed: out of order');
  });

  it('says what it is and how to use a real model for anything else', async () => {
    const agent = await demoAgent();
    const result = await agent.run('What is the weather like?');
    expect(result.toolCalls).toEqual([]);
    expect(result.text).toContain('I am the offline demo model');
    expect(result.text).toContain('OPENAI_API_KEY');
    expect(result.text).toContain(OFFLINE_HELP);
    expect(result.text).toContain(
      `Type / then a tool's name and its input as JSON to call it, e.g.:\n  /notes_add {"text":"text"}\n  /clock_now {}\n  /broken {}\n`,
    );
  });

  it('lists no tools when the agent has none', async () => {
    const agent = await demoAgent(false);
    const result = await agent.run('hello');
    expect(result.text).toContain('offline demo model');
    expect(result.text).toContain('This agent has no tools: give it some with "tools" in agent.config.ts.');
    expect(result.text).not.toContain('Type /');
  });

  it('answers a /command for a tool the agent does not have', async () => {
    const agent = await demoAgent();
    const result = await agent.run('/weather {"city": "Paris"}');
    expect(result.toolCalls).toEqual([]);
    expect(result.text).toBe('There is no tool "weather" here. Available: notes_add, clock_now, broken.');
    const typo = await agent.run('/notes_ad {"text": "milk"}');
    expect(typo.text).toBe(
      'There is no tool "notes_ad" here (did you mean "/notes_add"?). Available: notes_add, clock_now, broken.',
    );
  });

  it('answers input that is not JSON', async () => {
    save.mockClear();
    const agent = await demoAgent();
    const result = await agent.run('/notes_add buy milk');
    expect(save).not.toHaveBeenCalled();
    expect(result.text).toBe('The input after /notes_add must be JSON, e.g. /notes_add {"text":"text"}');
  });

  it('its hint, taken literally, calls each built-in tool with input its schema accepts', async () => {
    const kernel = await bootKernel({
      config: { model: 'offline', agents: { demo: { tools: ['*'] } }, subagents: {} },
      plugins: defaultPlugins({ subagents: {} }),
    });
    kernels.push(kernel);
    const agent = kernel.agent('demo');
    const hint = (await agent.run('hello')).text;
    const builtIn = kernel.registry.list();
    expect(builtIn.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['filesystem_read', 'bash', 'task']),
    );
    for (const tool of builtIn) {
      const line = hint.split('\n').find((text) => text.startsWith(`  /${tool.name} `));
      expect(line, tool.name).toBe(`  ${exampleCall(tool)}`);
      const input = JSON.parse(line!.slice(`  /${tool.name} `.length));
      const check = await kernel.registry.validateInput(tool.name, input);
      expect(check, `${tool.name} ${JSON.stringify(input)}`).toMatchObject({ ok: true });
    }
  });

  it('lets the tool schema answer input of the wrong shape', async () => {
    const agent = await demoAgent();
    const result = await agent.run('/notes_add {"txt": "typo"}');
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    expect(result.text).toMatch(
      /^notes_add failed: Error: invalid input for tool "notes_add": missing required property "text"/,
    );
  });

  it('streams deterministic chunks with a rough token count', async () => {
    const model = new OfflineModel();
    expect(model.provider).toBe('offline');
    const chunks: ModelChunk[] = [];
    for await (const chunk of model.stream({
      messages: [{ role: 'user', content: '/clock_now' }],
      tools: [{ name: 'clock_now', description: '', inputSchema: { type: 'object' } }],
      signal: new AbortController().signal,
    })) {
      chunks.push(chunk);
    }
    expect(chunks).toEqual([
      { type: 'tool-call-start', id: 'offline_1', name: 'clock_now' },
      { type: 'tool-call', id: 'offline_1', name: 'clock_now', input: {} },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 3, outputTokens: 0 } },
    ]);
  });
});
