import { afterEach, describe, expect, it } from 'vitest';
import {
  defineTool,
  type HubosConfig,
  type Kernel,
  type Message,
  type Plugin,
  type ToolContent,
  toolOutput,
} from '../../../core/index.ts';
import anthropic from '../../../plugins/models/anthropic.ts';
import { OfflineModel } from '../../../plugins/models/offline.ts';
import openai from '../../../plugins/models/openai.ts';
import { bootKernel } from '../../../testing/index.ts';
import { collect, type FakeServer, type Handler, type Received, sendJSON, startServer } from './server.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const PARTS: ToolContent[] = [
  { type: 'text', text: 'Sales by month:' },
  { type: 'image', data: PNG, mimeType: 'image/png' },
  { type: 'image', data: 'PHN2Zy8+', mimeType: 'image/svg+xml' },
  { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
];
const STAND_IN =
  'Sales by month:\n[image image/png, 70 bytes]\n[image image/svg+xml, 6 bytes]\n[audio audio/wav, 3 bytes]';

/** `chart` returns PARTS; `note` returns plain text. */
const chartTools: Plugin = {
  name: 'chart-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('chart-tools', (registry) =>
      registry.registerBatch([
        defineTool({
          name: 'chart',
          description: 'Draws a chart.',
          inputSchema: { type: 'object', properties: {} },
          handler: () => toolOutput({ content: PARTS }),
        }),
        defineTool({
          name: 'note',
          description: 'Notes something.',
          inputSchema: { type: 'object', properties: {} },
          handler: () => 'noted',
        }),
      ]),
    );
  },
};

let server: FakeServer | undefined;
let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  await server?.close();
  kernel = server = undefined;
});

/**
 * Runs an agent on the provider behind `handler` (its first answer calls `chart` and `note`, its
 * second ends the run); resolves with the requests the provider's server received.
 */
async function runChart(
  plugin: Plugin,
  config: (url: string) => HubosConfig,
  model: string,
  handler: Handler,
): Promise<Received[]> {
  server = await startServer(handler);
  kernel = await bootKernel({
    plugins: [plugin, chartTools],
    config: { ...config(server.url), agents: { helper: { model, tools: ['chart', 'note'] } } },
  });
  const result = await kernel.agent('helper').run('Chart the sales');
  expect(result.status).toBe('completed');
  expect(server.requests).toHaveLength(2);
  return server.requests;
}

describe('anthropic: a tool result with images', () => {
  const handler: Handler = (_req, res, index) =>
    sendJSON(res, 200, {
      id: `msg_${index}`,
      type: 'message',
      role: 'assistant',
      content:
        index === 0
          ? [
              { type: 'tool_use', id: 'toolu_1', name: 'chart', input: {} },
              { type: 'tool_use', id: 'toolu_2', name: 'note', input: {} },
            ]
          : [{ type: 'text', text: 'Sales rose.' }],
      stop_reason: index === 0 ? 'tool_use' : 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    });

  it('sends the images it reads as base64 image blocks inside the tool_result; the rest in words', async () => {
    const requests = await runChart(
      anthropic(),
      (url) => ({ anthropic: { baseURL: url, apiKey: 'k', stream: false } }),
      'anthropic:claude-sonnet-4-5',
      handler,
    );
    expect(requests[1]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          is_error: false,
          content: [
            { type: 'text', text: 'Sales by month:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            // SVG is not an image type the API reads: the model gets its stand-in.
            { type: 'text', text: '[image image/svg+xml, 6 bytes]' },
            { type: 'text', text: '[audio audio/wav, 3 bytes]' },
          ],
        },
        // The conversation's last block: a prompt-cache breakpoint.
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          is_error: false,
          content: 'noted',
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
  });
});

describe('openai: a tool result with images', () => {
  const handler: Handler = (_req, res, index) =>
    sendJSON(res, 200, {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message:
            index === 0
              ? {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    { id: 'call_1', type: 'function', function: { name: 'chart', arguments: '{}' } },
                    { id: 'call_2', type: 'function', function: { name: 'note', arguments: '{}' } },
                  ],
                }
              : { role: 'assistant', content: 'Sales rose.' },
          finish_reason: index === 0 ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });

  it('by default the tool message carries the text stand-in, and nothing else is sent', async () => {
    const requests = await runChart(
      openai(),
      (url) => ({ openai: { baseURL: url, apiKey: 'k', stream: false } }),
      'openai:gpt-4.1-mini',
      handler,
    );
    expect(requests[1]!.body.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: STAND_IN },
      { role: 'tool', tool_call_id: 'call_2', content: 'noted' },
    ]);
  });

  it('with toolImages, the images it reads follow all the results in a user message, as data URLs', async () => {
    const requests = await runChart(
      openai(),
      (url) => ({ openai: { baseURL: url, apiKey: 'k', stream: false, toolImages: true } }),
      'openai:gpt-4.1-mini',
      handler,
    );
    expect(requests[1]!.body.messages.slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: STAND_IN },
      { role: 'tool', tool_call_id: 'call_2', content: 'noted' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The images returned by the tool results above (chart), in order:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });
});

describe('offline: a tool result with images', () => {
  it('echoes the text stand-in', async () => {
    const messages: Message[] = [
      { role: 'user', content: '/chart' },
      { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'chart', input: {} }] },
      { role: 'tool', toolCallId: 't1', name: 'chart', content: STAND_IN, parts: PARTS },
    ];
    const chunks = await collect(
      new OfflineModel().stream({ messages, tools: [], signal: new AbortController().signal }),
    );
    expect(chunks[0]).toEqual({ type: 'text-delta', delta: `chart returned: ${STAND_IN}` });
  });
});
