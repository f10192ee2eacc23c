import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { bootAgent, makeTool } from './helpers.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  trace.disable();
  await provider.shutdown();
});

const kernels: Kernel[] = [];
async function setup(...args: Parameters<typeof bootAgent>) {
  const booted = await bootAgent(...args);
  kernels.push(booted.kernel);
  return booted;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
  exporter.reset();
});

const spanNamed = (spans: ReadableSpan[], name: string) => {
  const found = spans.filter((span) => span.name === name);
  expect(found.length, `spans named "${name}" in ${spans.map((s) => s.name).join(', ')}`).toBeGreaterThan(0);
  return found;
};

const isChildOf = (child: ReadableSpan, parent: ReadableSpan) =>
  child.parentSpanContext?.spanId === parent.spanContext().spanId &&
  child.spanContext().traceId === parent.spanContext().traceId;

describe('telemetry (OpenTelemetry GenAI spans)', () => {
  it('traces a run: invoke_agent with chat and execute_tool spans under it', async () => {
    const { agent } = await setup({
      name: 'helper',
      tools: [makeTool('lookup', () => 'found')],
      script: [
        { toolCalls: [{ id: 'call_1', name: 'lookup' }], usage: { inputTokens: 11, outputTokens: 2 } },
        { text: 'Found it.', usage: { inputTokens: 20, outputTokens: 4 } },
      ],
      template: { temperature: 0.5, maxTokens: 200 },
    });
    await agent.run('find it', { sessionId: 'conv-1' });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual([
      'chat scripted',
      'chat scripted',
      'execute_tool lookup',
      'invoke_agent helper',
    ]);

    const [root] = spanNamed(spans, 'invoke_agent helper');
    expect(root!.parentSpanContext).toBeUndefined();
    expect(root!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'helper',
      'gen_ai.agent.id': 'helper',
      'gen_ai.conversation.id': 'conv-1',
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': 31,
      'gen_ai.usage.output_tokens': 6,
    });
    expect(root!.status.code).not.toBe(SpanStatusCode.ERROR);

    const chats = spanNamed(spans, 'chat scripted');
    for (const chat of chats) {
      expect(isChildOf(chat, root!)).toBe(true);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.request.model': 'scripted',
        'gen_ai.request.temperature': 0.5,
        'gen_ai.request.max_tokens': 200,
      });
    }
    const usages = chats.map((c) => [
      c.attributes['gen_ai.usage.input_tokens'],
      c.attributes['gen_ai.usage.output_tokens'],
      c.attributes['gen_ai.response.finish_reasons'],
    ]);
    expect(usages).toEqual(
      expect.arrayContaining([
        [11, 2, ['tool-calls']],
        [20, 4, ['stop']],
      ]),
    );

    const [tool] = spanNamed(spans, 'execute_tool lookup');
    expect(isChildOf(tool!, root!)).toBe(true);
    expect(tool!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call_1',
    });
    expect(tool!.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  const brokenTool = () =>
    makeTool('broken', () => {
      throw new Error('disk full');
    });

  it('marks the span of a failing tool as an error, by its type only: a message may quote content', async () => {
    const { agent } = await setup({
      tools: [brokenTool()],
      script: [{ toolCalls: [{ id: 'call_x', name: 'broken' }] }, 'sorry'],
    });
    await agent.run('go');
    const [tool] = spanNamed(exporter.getFinishedSpans(), 'execute_tool broken');
    expect(tool!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TOOL_FAILED' });
    expect(tool!.attributes['error.type']).toBe('TOOL_FAILED');
    expect(tool!.events).toEqual([]);
    // The run itself went on and completed.
    const [root] = spanNamed(exporter.getFinishedSpans(), 'invoke_agent assistant');
    expect(root!.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('with telemetry.includeContent, a failing tool span carries the message and the exception', async () => {
    const { agent } = await setup({
      tools: [brokenTool()],
      script: [{ toolCalls: [{ id: 'call_x', name: 'broken' }] }, 'sorry'],
      config: { telemetry: { includeContent: true } },
    });
    await agent.run('go');
    const [tool] = spanNamed(exporter.getFinishedSpans(), 'execute_tool broken');
    expect(tool!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tool "broken" failed: disk full' });
    expect(tool!.events.map((e) => e.name)).toContain('exception');
    expect(tool!.attributes['gen_ai.tool.call.arguments']).toBe('{}');
  });

  it('marks the run and chat spans as errors when the model fails', async () => {
    const { agent } = await setup({ script: [{ error: 'boom' }] });
    await expect(agent.run('go')).rejects.toThrow('boom');
    const spans = exporter.getFinishedSpans();
    const [root] = spanNamed(spans, 'invoke_agent assistant');
    const [chat] = spanNamed(spans, 'chat scripted');
    expect(root!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'MODEL_HTTP_ERROR' });
    expect(root!.attributes['error.type']).toBe('MODEL_HTTP_ERROR');
    expect(chat!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('notes a cancelled run on its span', async () => {
    const { agent } = await setup({ script: ['never'] });
    await agent.run('go', { signal: AbortSignal.abort() });
    const [root] = spanNamed(exporter.getFinishedSpans(), 'invoke_agent assistant');
    expect(root!.attributes['hubos.run.status']).toBe('cancelled');
  });
});
