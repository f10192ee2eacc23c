import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorMessage, HubosError } from '../../core/index.ts';

/** An error a route answers with: `{ error: { code, message } }` and its status. */
export class HttpError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  AGENT_NOT_FOUND: 404,
  AGENT_EXISTS: 409,
  AGENT_INVALID: 400,
  TOOL_NOT_FOUND: 404,
  CONFIG_INVALID: 400,
  MODEL_HTTP_ERROR: 502,
  MODEL_TIMEOUT: 504,
  MODEL_RESPONSE_INVALID: 502,
  MODEL_NOT_FOUND: 400,
  MODEL_CONFIG: 500,
};

/** The JSON error body and status for anything a route throws. */
export function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof HttpError) {
    return c.json({ error: { code: error.code, message: error.message } }, error.status, error.headers);
  }
  if (HubosError.is(error)) {
    return c.json({ error: { code: error.code, message: error.message } }, STATUS_BY_CODE[error.code] ?? 500);
  }
  return c.json({ error: { code: 'INTERNAL', message: errorMessage(error) } }, 500);
}
