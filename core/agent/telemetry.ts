import { createRequire } from 'node:module';
import type { Attributes, Context, Span, SpanContext, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { errorMessage, HubosError } from '../errors.ts';

type OpenTelemetryApi = typeof import('@opentelemetry/api');

/**
 * Where OpenTelemetry's API keeps whatever an application registers (a tracer provider, a context
 * manager): until something is there, every span is a no-op, so the API is not even loaded. That
 * keeps its ~45 modules out of every start; it loads with the first span after an SDK registers.
 */
const REGISTERED = Symbol.for('opentelemetry.js.api.1');

/** The span kinds and status HubOS uses (the values are OpenTelemetry's, fixed by its spec). */
export const SPAN_KIND = { INTERNAL: 0 as SpanKind.INTERNAL, CLIENT: 2 as SpanKind.CLIENT } as const;
const STATUS_ERROR = 2 as SpanStatusCode.ERROR;

let api: OpenTelemetryApi | undefined;
let tracer: ReturnType<OpenTelemetryApi['trace']['getTracer']> | undefined;
/** Whether spans carry prompts, answers and tool arguments and results (`telemetry.includeContent`). */
let withContent = false;

/**
 * Set when the kernel registers or drops its tracer provider: the next span takes its tracer anew
 * (the API's proxy keeps the first provider it reached), and content goes in only if asked for.
 * @internal
 */
export function tracingChanged(options: { includeContent: boolean }): void {
  tracer = undefined;
  withContent = options.includeContent;
}

/** Whether a span may carry content: asked for, and the span is recorded. */
export function contentFor(span: Span): boolean {
  return withContent && span !== NOOP_SPAN && span.isRecording();
}
function registeredApi(): OpenTelemetryApi | undefined {
  if (api === undefined && (globalThis as Record<symbol, unknown>)[REGISTERED] !== undefined)
    api = createRequire(import.meta.url)('@opentelemetry/api') as OpenTelemetryApi;
  return api;
}

/** The context of a run that began before anything was registered: its spans start a new trace. */
class NoContext implements Context {
  getValue(): unknown {
    return undefined;
  }
  setValue(key: symbol, value: unknown): Context {
    return (registeredApi()?.ROOT_CONTEXT ?? this).setValue(key, value);
  }
  deleteValue(): Context {
    return this;
  }
}
const NO_CONTEXT = new NoContext();

const INVALID_SPAN_CONTEXT: SpanContext = {
  traceId: '00000000000000000000000000000000',
  spanId: '0000000000000000',
  traceFlags: 0,
};
const NOOP_SPAN: Span = {
  spanContext: () => INVALID_SPAN_CONTEXT,
  setAttribute: () => NOOP_SPAN,
  setAttributes: () => NOOP_SPAN,
  addEvent: () => NOOP_SPAN,
  addLink: () => NOOP_SPAN,
  addLinks: () => NOOP_SPAN,
  setStatus: () => NOOP_SPAN,
  updateName: () => NOOP_SPAN,
  end: () => undefined,
  isRecording: () => false,
  recordException: () => undefined,
};

/** The active OpenTelemetry context (the caller's span, with an SDK's context manager). */
export function activeContext(): Context {
  return registeredApi()?.context.active() ?? NO_CONTEXT;
}

/** Starts a span under `parent` (GenAI semantic conventions: `invoke_agent x`, `chat m`, `execute_tool t`). */
export function startSpan(
  name: string,
  attributes: Attributes,
  parent: Context = activeContext(),
  kind: SpanKind = SPAN_KIND.INTERNAL,
): { span: Span; ctx: Context } {
  const otel = registeredApi();
  if (!otel) return { span: NOOP_SPAN, ctx: parent };
  const from = parent === NO_CONTEXT ? otel.ROOT_CONTEXT : parent;
  // A proxy: the registered SDK's tracer, or a no-op once it is disabled.
  tracer ??= otel.trace.getTracer('hubos');
  const span = tracer.startSpan(name, { kind, attributes }, from);
  return { span, ctx: otel.trace.setSpan(from, span) };
}

/**
 * Marks a span failed with the error's type. Its message and stack go in only with content: an
 * error's message may quote a tool's input, a model's answer or a config value.
 */
export function failSpan(span: Span, error: unknown): void {
  if (span === NOOP_SPAN) return;
  const type = HubosError.is(error) ? error.code : error instanceof Error ? error.name : 'error';
  span.setAttribute('error.type', type);
  if (!contentFor(span)) {
    span.setStatus({ code: STATUS_ERROR, message: type });
    return;
  }
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: STATUS_ERROR, message: errorMessage(error) });
}
