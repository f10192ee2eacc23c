import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorCodeSpec, errorMessage, HubosError } from '../../../core/index.ts';

/**
 * A coded error raised by a route with its status given on the spot:
 * `throw new HttpError(404, 'NOTE_NOT_FOUND', 'no note "x"')`. It is a HubosError, so it is answered
 * like every other coded error. Codes used in more than one place are better declared once with
 * `defineErrorCodes` (their status with them) and raised with `HubosError` or the catalog's `create`.
 */
export class HttpError extends HubosError {
  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    if (!Number.isInteger(status) || status < 400 || status > 599)
      throw new TypeError(
        `HttpError "${code}": status must be an HTTP error status (400-599), got ${status}`,
      );
    super(code, message, { status, headers });
    this.name = 'HttpError';
  }
}

/**
 * A run that failed, answered as its error's code declares with the run's `result` beside `error`
 * (what it did before failing): `{ error: { code, message }, result }`.
 */
export class RunFailedError extends HubosError {
  readonly result: unknown;

  constructor(code: string, message: string, result: unknown) {
    super(code, message);
    this.name = 'RunFailedError';
    this.result = result;
  }
}

/**
 * The one mapping from anything a route throws to a response: `{ error: { code, message } }` with the
 * status (and headers) its code declares; Hono's own HTTP errors keep their status; anything else is a 500.
 */
export function errorResponse(c: Context, error: unknown): Response {
  if (HubosError.is(error)) {
    // An error from an older copy of the package carries no status: its code's declaration decides.
    const spec = errorCodeSpec(error.code);
    return c.json(
      {
        error: { code: error.code, message: error.message },
        ...(error instanceof RunFailedError ? { result: error.result } : {}),
      },
      (error.status ?? spec?.status ?? 500) as ContentfulStatusCode,
      error.headers ?? spec?.headers,
    );
  }
  if (error instanceof HTTPException) {
    // Hono middleware that built its own answer (basic auth's WWW-Authenticate) keeps it.
    if (error.res) return error.getResponse();
    return c.json(
      { error: { code: 'HTTP_ERROR', message: error.message } },
      error.status as ContentfulStatusCode,
    );
  }
  return c.json({ error: { code: 'INTERNAL', message: errorMessage(error) } }, 500);
}
