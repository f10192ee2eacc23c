/**
 * Traces out: a kernel with `telemetry.otlp` (or the standard OTEL_ variables) sends every run's
 * spans to an OTLP/HTTP endpoint, here the test's own receiver, and flushes them at close. What a
 * run says (prompts, answers, tool data) goes only with `includeContent`; no header, key or
 * environment variable ever does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HubosConfig, Logger } from '../../core/index.ts';
import { bootAgent, makeTool } from '../agent/helpers.ts';
import { type ExportedSpan, startReceiver } from './otlp-receiver.ts';

const TOOL_SECRET = 'tool-input-secret-7f3a9c';
const ENV_SECRET = 'env-secret-b81d22e4';
const HEADER_SECRET = 'header-secret-5c0e91';
const PROMPT = 'look up order 4711 please';
const ANSWER = 'Order 4711 ships tomorrow.';

const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
const envBefore = { ...process.env };
afterEach(async () => {
  for (const key of Object.keys(process.env)) if (!(key in envBefore)) delete process.env[key];
  Object.assign(process.env, envBefore);
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(options?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(options);
  receivers.push(started);
  return started;
}

/** Boots an agent whose model calls `lookup` with the secret, runs it once and closes the kernel. */
async function runOnce(config: HubosConfig | undefined, logger?: Logger) {
  process.env.HUBOS_TEST_API_KEY = ENV_SECRET;
  const { kernel, agent } = await bootAgent({
    name: 'clerk',
    config,
    ...(logger ? { options: { logger } } : {}),
    tools: [makeTool('lookup', () => ({ status: 'ships tomorrow' }))],
    script: [
      {
        toolCalls: [{ id: 'call_1', name: 'lookup', input: { order: 4711, token: TOOL_SECRET } }],
        usage: { inputTokens: 12, outputTokens: 3 },
      },
      { text: ANSWER, usage: { inputTokens: 25, outputTokens: 6 } },
    ],
  });
  const result = await agent.run(PROMPT);
  expect(result.status).toBe('completed');
  await kernel.close();
}

const named = (spans: ExportedSpan[], name: string) => {
  const found = spans.filter((span) => span.name === name);
  expect(found.length, `spans named "${name}" in ${spans.map((s) => s.name).join(', ')}`).toBeGreaterThan(0);
  return found;
};

describe('telemetry.otlp: spans to an OTLP/HTTP endpoint', () => {
  it('exports the run, model and tool spans with their GenAI attributes, and no content nor secret', async () => {
    const otlp = await receiver();
    await runOnce({
      telemetry: {
        otlp: { endpoint: otlp.url, headers: { authorization: `Bearer ${HEADER_SECRET}` } },
        serviceName: 'shop-agents',
      },
    });
    // The close flushed the batch: every span is there without waiting.
    expect(otlp.received.length).toBeGreaterThan(0);
    for (const request of otlp.received) {
      expect(request.path).toBe('/v1/traces');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers.authorization).toBe(`Bearer ${HEADER_SECRET}`);
    }
    const spans = otlp.spans();
    expect(spans.map((span) => span.name).sort()).toEqual([
      'chat scripted',
      'chat scripted',
      'execute_tool lookup',
      'invoke_agent clerk',
    ]);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['shop-agents']));

    const [root] = named(spans, 'invoke_agent clerk');
    expect(root!.parentSpanId || undefined).toBeUndefined();
    expect(root!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'clerk',
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': 37,
      'gen_ai.usage.output_tokens': 9,
    });
    const chats = named(spans, 'chat scripted');
    for (const chat of chats) {
      expect(chat.parentSpanId).toBe(root!.spanId);
      expect(chat.traceId).toBe(root!.traceId);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'scripted',
      });
    }
    expect(
      chats.map((chat) => [
        chat.attributes['gen_ai.usage.input_tokens'],
        chat.attributes['gen_ai.usage.output_tokens'],
      ]),
    ).toEqual(
      expect.arrayContaining([
        [12, 3],
        [25, 6],
      ]),
    );
    const [tool] = named(spans, 'execute_tool lookup');
    expect(tool!.parentSpanId).toBe(root!.spanId);
    expect(tool!.traceId).toBe(root!.traceId);
    expect(tool!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call_1',
    });

    const bytes = otlp.bytes();
    for (const kept of [TOOL_SECRET, ENV_SECRET, HEADER_SECRET, PROMPT, ANSWER, 'ships tomorrow'])
      expect(bytes, `"${kept}" in an exported body`).not.toContain(kept);
    for (const absent of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments'])
      expect(bytes).not.toContain(absent);
  });

  it('with includeContent, exports the messages and tool data, and still no environment variable', async () => {
    const otlp = await receiver();
    await runOnce({ telemetry: { otlp: { endpoint: otlp.url }, includeContent: true } });
    const spans = otlp.spans();
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['hubos']));
    const chats = named(spans, 'chat scripted');
    const inputs = chats.map((chat) => JSON.parse(String(chat.attributes['gen_ai.input.messages'])));
    expect(inputs[0]).toContainEqual({ role: 'user', parts: [{ type: 'text', content: PROMPT }] });
    const outputs = chats.map((chat) => JSON.parse(String(chat.attributes['gen_ai.output.messages'])));
    expect(outputs).toContainEqual([
      { role: 'assistant', parts: [{ type: 'text', content: ANSWER }], finish_reason: 'stop' },
    ]);
    expect(outputs).toContainEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: { order: 4711, token: TOOL_SECRET } },
        ],
        finish_reason: 'tool-calls',
      },
    ]);
    const [tool] = named(spans, 'execute_tool lookup');
    expect(JSON.parse(String(tool!.attributes['gen_ai.tool.call.arguments']))).toEqual({
      order: 4711,
      token: TOOL_SECRET,
    });
    expect(JSON.parse(String(tool!.attributes['gen_ai.tool.call.result']))).toEqual({
      status: 'ships tomorrow',
    });
    expect(otlp.bytes()).not.toContain(ENV_SECRET);
  });

  it('is turned on by the OTEL_ variables, which the config overrides', async () => {
    const otlp = await receiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = otlp.url;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `x-api-key=${encodeURIComponent(`${HEADER_SECRET} ok`)}`;
    process.env.OTEL_SERVICE_NAME = 'from-env';
    await runOnce(undefined);
    expect(new Set(otlp.spans().map((span) => span.service))).toEqual(new Set(['from-env']));
    expect(otlp.spans()).toHaveLength(4);
    expect(otlp.received[0]!.headers['x-api-key']).toBe(`${HEADER_SECRET} ok`);
    expect(otlp.bytes()).not.toContain(HEADER_SECRET);

    // The config's endpoint and service name win over the variables'.
    const other = await receiver();
    await runOnce({
      telemetry: { otlp: { endpoint: `${other.url}/v1/traces` }, serviceName: 'from-config' },
    });
    expect(otlp.spans()).toHaveLength(4);
    expect(new Set(other.spans().map((span) => span.service))).toEqual(new Set(['from-config']));
    expect(other.spans()).toHaveLength(4);
  });

  it('logs a refused export without the headers it sent, and the run is not failed by it', async () => {
    const otlp = await receiver({
      refuse: (headers) => `key ${String(headers.authorization)} is not known here`,
    });
    const warnings: string[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      error: (m) => warnings.push(m),
      warn: (m) => warnings.push(m),
    };
    await runOnce(
      { telemetry: { otlp: { endpoint: otlp.url, headers: { authorization: `Bearer ${HEADER_SECRET}` } } } },
      logger,
    );
    expect(otlp.received.length).toBeGreaterThan(0);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^exporting spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed: key \[redacted\] is not known here$/,
      ),
    );
    expect(warnings.join('\n')).not.toContain(HEADER_SECRET);
  });

  it('exports nothing when neither the config nor the environment asks', async () => {
    const otlp = await receiver();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    await runOnce({});
    expect(otlp.received).toEqual([]);
  });
});

describe('telemetry config', () => {
  it('refuses an endpoint without its scheme and a header that is not text, showing no header value', async () => {
    const error = await bootAgent({
      config: {
        telemetry: { otlp: { endpoint: 'localhost:4318', headers: { 'x-api-key': 98765432 as never } } },
      },
    }).then(
      () => undefined,
      (thrown: Error) => thrown,
    );
    expect(error?.message).toContain(
      '"telemetry.otlp.endpoint" must match pattern "^https?://", got string "localhost:4318"',
    );
    expect(error?.message).toContain(
      '"telemetry.otlp.headers.x-api-key" must be string, got a number (its value not shown: a secret)',
    );
    expect(error?.message).not.toContain('98765432');
  });
});
