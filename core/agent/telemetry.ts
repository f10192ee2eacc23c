import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { errorMessage, HubosError } from '../errors.ts';

// A proxy: a no-op until the application registers an OpenTelemetry SDK, then that SDK's tracer.
const hubosTracer = trace.getTracer('hubos');
const tracer = () => hubosTracer;

/** Starts a span under `parent` (GenAI semantic conventions: `invoke_agent x`, `chat m`, `execute_tool t`). */
export function startSpan(
  name: string,
  attributes: Attributes,
  parent: Context = context.active(),
  kind: SpanKind = SpanKind.INTERNAL,
): { span: Span; ctx: Context } {
  const span = tracer().startSpan(name, { kind, attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

export function failSpan(span: Span, error: unknown): void {
  span.setAttribute(
    'error.type',
    HubosError.is(error) ? error.code : error instanceof Error ? error.name : 'error',
  );
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
}
