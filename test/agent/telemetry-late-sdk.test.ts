/**
 * Spans with an OpenTelemetry SDK that registers after HubOS started (in a plugin's apply, say):
 * until then runs make no spans at all; from then on they do, and a run that was already going
 * when it registered finishes without error, its later spans starting a trace of their own.
 * A file of its own: the other telemetry tests register their SDK before anything runs.
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { bootAgent, makeTool } from './helpers.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const kernels: Kernel[] = [];

afterAll(async () => {
  await Promise.all(kernels.map((kernel) => kernel.close()));
  trace.disable();
  await provider.shutdown();
});

describe('telemetry with an SDK registered late', () => {
  it('makes no spans before an SDK registers, and traces runs from then on, one already going included', async () => {
    const { agent, kernel } = await bootAgent({
      tools: [makeTool('register', () => (trace.setGlobalTracerProvider(provider) ? 'registered' : 'not'))],
      script: [
        'before',
        // The second run registers the SDK in its tool call: its last model call comes after.
        { toolCalls: [{ id: 'call_1', name: 'register' }] },
        'after registering',
        'traced',
      ],
    });
    kernels.push(kernel);
    expect((await agent.run('first')).text).toBe('before');
    expect(exporter.getFinishedSpans()).toEqual([]);

    const second = await agent.run('second');
    expect(second.text).toBe('after registering');
    expect(second.toolCalls.map((call) => call.output)).toEqual(['registered']);
    // Begun before the SDK: only its last model call is a span, the root of a trace of its own.
    const late = exporter.getFinishedSpans();
    expect(late.map((span) => span.name)).toEqual(['chat scripted']);
    expect(late[0]!.parentSpanContext).toBeUndefined();

    exporter.reset();
    await agent.run('third');
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).toEqual(['chat scripted', 'invoke_agent assistant']);
    const root = spans.find((span) => span.name === 'invoke_agent assistant')!;
    const chat = spans.find((span) => span.name === 'chat scripted')!;
    expect(chat.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(chat.spanContext().traceId).toBe(root.spanContext().traceId);
  });
});
