import {
  A2A_VERSION_HEADER,
  Extensions,
  formatSSEErrorEvent,
  formatSSEEvent,
  HTTP_EXTENSION_HEADER,
  SSE_HEADERS,
} from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER, LEGACY_METHOD_TASKS_RESUBSCRIBE } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_ERROR_CODE, ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import {
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { Principal } from '../../../core/index.ts';
import { HubosError } from '../../../core/index.ts';
import { isJsonContentType, parseJsonText } from '../kit/read-body.ts';
import { PrincipalUser } from './caller.ts';
import type { A2AEndpoint } from './endpoints.ts';

type Id = string | number | null;
interface Envelope {
  jsonrpc: string;
  id: Id;
  result?: unknown;
  error?: unknown;
}
type ErrorMapper = (error: unknown) => { code: number; message: string };

/**
 * One JSON-RPC call, as the SDK's Express `jsonRpcHandler` does it but on Hono: v0.3 clients (no
 * `A2A-Version` header, or 0.3) go to the SDK's v0.3 translator, others to the v1.0 handler. Every
 * failure is a JSON-RPC error envelope (HTTP 200, 500 only for internal errors), never a crash.
 */
export async function handleJsonRpc(
  c: Context,
  endpoint: A2AEndpoint,
  principal: Principal,
): Promise<Response> {
  const version = c.req.header(A2A_VERSION_HEADER)?.trim() || undefined;
  const legacy = (version ?? '0.3') === '0.3';
  const mapError: ErrorMapper = legacy
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError;
  const fail = (id: Id, error: { code: number; message: string }, status: 200 | 415 | 500 = 200) =>
    c.json({ jsonrpc: '2.0', id, error }, status);

  // Only a JSON post: a form or text/plain one (what any web page may send) starts nothing.
  const contentType = c.req.header('content-type');
  if (!isJsonContentType(contentType)) {
    const sent = contentType === undefined ? 'no Content-Type' : `Content-Type "${contentType}"`;
    return fail(
      null,
      mapError(
        new ContentTypeNotSupportedError(`Unsupported ${sent}; send "Content-Type: application/json".`),
      ),
      415,
    );
  }
  let body: unknown;
  try {
    body = parseJsonText(await c.req.text());
  } catch (error) {
    if (HubosError.is(error) && error.code !== 'INVALID_JSON' && error.code !== 'JSON_TOO_COMPLEX')
      throw error; // 413 from the body limit stays an HTTP error
    const message =
      HubosError.is(error) && error.code === 'JSON_TOO_COMPLEX' ? error.message : 'Invalid JSON payload.';
    return fail(null, { code: A2A_ERROR_CODE.PARSE_ERROR, message });
  }
  const invalid = envelopeProblem(body);
  if (invalid) return fail(validId(body), { code: A2A_ERROR_CODE.INVALID_REQUEST, message: invalid });
  const request = body as Record<string, unknown>;
  const id = validId(request);

  try {
    const headers = { ...c.req.header() };
    delete headers.authorization; // the request context needs no secret
    const extensions = c.req.header(legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER);
    const context = defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(
        extensions ?? (legacy ? c.req.header(HTTP_EXTENSION_HEADER) : undefined),
      ),
      // The caller's principal: tasks and their contexts are its own (see task-store.ts).
      user: new PrincipalUser(principal),
      headers,
      ...(version ? { requestedVersion: version } : {}),
    });
    validateVersion(context.requestedVersion, await endpoint.handler.getAgentCard(), 'JSONRPC');
    const output = await (legacy ? endpoint.legacy : endpoint.jsonRpc).handle(request, context);
    if (context.activatedExtensions?.length) {
      c.header(
        legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER,
        context.activatedExtensions.join(','),
      );
    }
    if (Symbol.asyncIterator in output) {
      // v0.3 resubscribe always answers SSE, errors included; other streams fail as plain JSON first.
      const prefetch = !(legacy && request.method === LEGACY_METHOD_TASKS_RESUBSCRIBE);
      return await sse(c, output, id, mapError, prefetch);
    }
    return c.json(output);
  } catch (error) {
    const mapped = mapError(error);
    return fail(id, mapped, mapped.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200);
  }
}

/** Streams the responses as SSE `data:` events; an error mid-stream becomes an `error` event. */
async function sse(
  c: Context,
  events: AsyncGenerator<Envelope>,
  id: Id,
  mapError: ErrorMapper,
  prefetch: boolean,
): Promise<Response> {
  let first: IteratorResult<Envelope> | undefined;
  if (prefetch) {
    try {
      first = await events.next();
    } catch (error) {
      return c.json({ jsonrpc: '2.0', id, error: mapError(error) });
    }
  }
  for (const [name, value] of Object.entries(SSE_HEADERS)) c.header(name, value);
  return stream(c, async (out) => {
    let gone = false;
    out.onAbort(() => {
      gone = true;
    });
    try {
      let next = first ?? (await events.next());
      while (!next.done && !gone) {
        await out.write(formatSSEEvent(next.value));
        next = await events.next();
      }
    } catch (error) {
      if (!gone) await out.write(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(error) }));
    } finally {
      // A client that left stops only its view: the task runs on (A2A clients can fetch it later).
      await events.return(undefined);
    }
  });
}

/** Why `body` is not a JSON-RPC 2.0 request, if it is not one (batches included: A2A has none). */
function envelopeProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Invalid JSON-RPC Request.';
  const request = body as Record<string, unknown>;
  if (request.jsonrpc !== '2.0') return 'Invalid JSON-RPC Request: jsonrpc must be "2.0".';
  if ('id' in request && validId(request) === null && request.id !== null)
    return 'Invalid JSON-RPC Request: id must be a string, an integer or null.';
  if (typeof request.method !== 'string' || request.method === '')
    return 'Invalid JSON-RPC Request: method must be a non-empty string.';
  return undefined;
}

function validId(body: unknown): Id {
  const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}
