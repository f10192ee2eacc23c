import type { Context, MiddlewareHandler } from 'hono';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import { isJsonContentType } from '../kit/read-body.ts';
import { CHANGES_STATE } from './origin-check.ts';

/**
 * 415 `UNSUPPORTED_MEDIA_TYPE` for a state-changing request (POST, PUT, PATCH, DELETE) that names a
 * Content-Type other than JSON — a form, `text/plain`, multipart — with a body or without: those are
 * what any web page may send without asking, so no route acts on one, including routes that read no
 * body (a cancel, a DELETE). A request without a Content-Type passes (an API client's `curl -X POST`);
 * the route then refuses a body it cannot read as JSON. `readsItsOwn` names requests a route checks
 * itself under the same rule, to answer in its protocol's shape.
 */
export function bodyTypeCheck(readsItsOwn: (c: Context) => boolean = () => false): MiddlewareHandler {
  return async (c, next) => {
    if (!CHANGES_STATE.has(c.req.method)) return next();
    const contentType = c.req.header('content-type');
    if (contentType === undefined || isJsonContentType(contentType) || readsItsOwn(c)) return next();
    throw HUBOS_ERROR_CODES.create(
      'UNSUPPORTED_MEDIA_TYPE',
      `${c.req.method} ${c.req.path} takes JSON or nothing, not Content-Type "${contentType.slice(0, 100)}" (form, text/plain and multipart requests are refused, with or without a body): send a JSON body with "Content-Type: application/json", or no body and no Content-Type`,
    );
  };
}
