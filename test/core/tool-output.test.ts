import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, type Kernel, Registry, type ToolContent, toolOutput } from '../../core/index.ts';
import { invokeTool } from '../../testing/index.ts';
import { bootAgent, makeTool } from '../agent/helpers.ts';
import { expectHubosError } from './helpers.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

// A 1×1 transparent PNG.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const chart: ToolContent[] = [
  { type: 'text', text: 'The chart:' },
  { type: 'image', data: PNG, mimeType: 'image/png' },
  { type: 'resource_link', uri: 'file:///data.csv', name: 'data.csv', mimeType: 'text/csv' },
];

describe('toolOutput: rich results', () => {
  it('executeTool keeps the parts in `content`, and the parts in words as `output`', async () => {
    const tool = makeTool('chart', () => toolOutput({ content: chart }));
    const result = await invokeTool(tool, {});
    expect(result).toEqual({
      ok: true,
      output: 'The chart:\n[image image/png, 70 bytes]\n[resource link file:///data.csv: data.csv]',
      content: chart,
    });
  });

  it('structured data becomes `output`, beside the parts', async () => {
    const tool = makeTool('stats', () =>
      toolOutput({ content: [{ type: 'text', text: '3 rows' }], structuredContent: { rows: 3 } }),
    );
    expect(await invokeTool(tool, {})).toEqual({
      ok: true,
      output: { rows: 3 },
      content: [{ type: 'text', text: '3 rows' }],
    });
  });

  it('in a run: the record keeps the parts, the model gets the text stand-in with the parts beside it', async () => {
    const { kernel, agent, model } = await bootAgent({
      tools: [makeTool('chart', () => toolOutput({ content: chart }))],
      script: [{ toolCalls: [{ name: 'chart', id: 'c1' }] }, 'Here it is.'],
    });
    kernels.push(kernel);
    const result = await agent.run('draw');
    expect(result.toolCalls[0]).toMatchObject({ ok: true, content: chart });
    const toolMessage = model.requests[1]!.messages.at(-1);
    expect(toolMessage).toEqual({
      role: 'tool',
      toolCallId: 'c1',
      name: 'chart',
      content: 'The chart:\n[image image/png, 70 bytes]\n[resource link file:///data.csv: data.csv]',
      parts: chart,
    });
    expect(result.messages.find((m) => m.role === 'tool')).toEqual(toolMessage);
  });

  it('a beforeToolCall tap answering with toolOutput keeps its parts', async () => {
    const { kernel, agent } = await bootAgent({
      tools: [makeTool('chart', () => 'not called')],
      script: [{ toolCalls: [{ name: 'chart', id: 'c1' }] }, 'ok'],
    });
    kernels.push(kernel);
    agent.hooks.beforeToolCall.tap('cache', () => ({ result: toolOutput({ content: chart }) }));
    const result = await agent.run('draw');
    expect(result.toolCalls[0]).toMatchObject({ ok: true, content: chart });
  });

  it('refuses malformed parts, saying which and why', async () => {
    const cases: [unknown, string][] = [
      ['just text', 'needs `content` to be an array'],
      [[{ type: 'video', data: 'AA==' }], 'content[0] has type "video"'],
      [[{ type: 'image', data: PNG }], 'content[0] (image) needs `mimeType`'],
      [
        [
          { type: 'text', text: 'ok' },
          { type: 'image', data: `data:image/png;base64,${PNG}`, mimeType: 'image/png' },
        ],
        'content[1] (image): `data` must be base64',
      ],
      [[{ type: 'resource', resource: { uri: 'x:1' } }], 'content[0] (resource) needs'],
      [[null], 'content[0] must be an object'],
    ];
    for (const [content, problem] of cases) {
      const tool = makeTool('bad', () => toolOutput({ content: content as ToolContent[] }));
      const result = await invokeTool(tool, {});
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.code).toBe('TOOL_FAILED');
      expect(!result.ok && result.error.message).toContain(problem);
    }
  });
});

describe('outputSchema', () => {
  const weather = (handler: () => unknown) =>
    defineTool({
      name: 'weather',
      description: 'The weather.',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: {
        type: 'object',
        properties: { celsius: { type: 'number' } },
        required: ['celsius'],
      },
      handler,
    });

  it('accepts a result that fits, as a plain object or as structuredContent', async () => {
    expect(
      await invokeTool(
        weather(() => ({ celsius: 21 })),
        {},
      ),
    ).toEqual({
      ok: true,
      output: { celsius: 21 },
    });
    const rich = await invokeTool(
      weather(() =>
        toolOutput({ content: [{ type: 'text', text: '21 °C' }], structuredContent: { celsius: 21 } }),
      ),
      {},
    );
    expect(rich).toMatchObject({ ok: true, output: { celsius: 21 } });
  });

  it('refuses a result that does not fit, or none at all, naming the field', async () => {
    for (const handler of [
      () => ({ celsius: 'warm' }),
      () => toolOutput({ content: [{ type: 'text', text: 'warm' }] }),
      () => 'warm',
    ]) {
      const result = await invokeTool(weather(handler), {});
      expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
      expect(!result.ok && result.error.message).toContain('does not match its outputSchema');
    }
    const wrong = await invokeTool(
      weather(() => ({ celsius: 'warm' })),
      {},
    );
    expect(!wrong.ok && wrong.error.message).toMatch(/celsius/);
  });

  it('must describe an object', () => {
    const registry = new Registry();
    const error = expectHubosError(
      () => registry.register(makeTool('t', () => 1, { outputSchema: { type: 'array' } as never })),
      'TOOL_INVALID',
    );
    expect(error.message).toContain('outputSchema must be a JSON Schema of an object');
    // The failed registration left nothing behind: the same tool registers once fixed.
    registry.register(makeTool('t', () => 1, { outputSchema: { type: 'object' } }));
    expect(registry.has('t')).toBe(true);
  });
});

describe('JSON Schema 2020-12', () => {
  it('an inputSchema declaring 2020-12 compiles with that dialect and validates', async () => {
    const tool = defineTool({
      name: 'pair',
      description: 'Takes a [name, count] pair.',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
        },
        required: ['pair'],
      },
      handler: (_ctx, { input }) => input,
    });
    expect(await invokeTool(tool, { pair: ['apples', 3] })).toEqual({
      ok: true,
      output: { pair: ['apples', 3] },
    });
    for (const pair of [
      [3, 'apples'],
      ['apples', 3, 'extra'],
    ]) {
      const refused = await invokeTool(tool, { pair });
      expect(refused).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    }
  });
});
