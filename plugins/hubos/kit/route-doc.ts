import type { MiddlewareHandler } from 'hono';
import { errorCodeSpec, type JSONSchemaObject } from '../../../core/index.ts';

/** What the OpenAPI document says of one route; routes register theirs as they are added. */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path, e.g. `/api/agents/{name}`. */
  path: string;
  summary: string;
  tags?: string[];
  /** The JSON Schema that validates the body. */
  body?: JSONSchemaObject;
  /** Also answers `text/event-stream` when asked. */
  sse?: boolean;
  /** What each path parameter (`:name`) is; every one is listed, described or not. */
  params?: Record<string, string>;
  /** The query parameters it reads (all optional), each with what it does. */
  query?: Record<string, string>;
  /** Statuses it answers, each with when (success statuses; a bare error status for a code not declared). */
  responses?: Record<string, string>;
  /**
   * The error codes it answers, each with when: their statuses come from where the codes are
   * declared (`defineErrorCodes`), the one mapping that also answers them.
   */
  errors?: Record<string, string>;
}

/** What a route says of itself; its method and path come from where it is mounted. */
export type RouteDescription = Omit<RouteDoc, 'method' | 'path'>;

const DOC = Symbol.for('hubos.route-doc');
type Described = MiddlewareHandler & { [DOC]?: RouteDescription };

/**
 * Documents the route it is added to, for `/api/openapi.json`:
 * `app.post('/notes', describeRoute({ summary: 'Add a note', body: NOTE }), handler)`. Give `body`
 * the same schema `readBody` validates with, so the document and the check never disagree.
 */
export function describeRoute(description: RouteDescription): MiddlewareHandler {
  const described: Described = (_c, next) => next();
  described[DOC] = description;
  return described;
}

/** The docs of an app's described routes, with paths as they are served under `prefix` (`:id` → `{id}`). */
export function routeDocsOf(
  app: { readonly routes: readonly { method: string; path: string; handler: unknown }[] },
  prefix = '',
): RouteDoc[] {
  const docs: RouteDoc[] = [];
  for (const route of app.routes) {
    const description = (route.handler as Described)[DOC];
    if (!description) continue;
    const method = route.method.toLowerCase();
    if (!METHODS.includes(method as RouteDoc['method'])) continue;
    const path = `${prefix.replace(/\/$/, '')}${route.path === '/' ? '' : route.path}` || '/';
    docs.push({
      method: method as RouteDoc['method'],
      path: path.replace(/:(\w+)(\{(?:[^{}]|\{[^{}]*\})*\})?\??/g, '{$1}'),
      ...description,
    });
  }
  return docs;
}

const METHODS: readonly RouteDoc['method'][] = ['get', 'post', 'put', 'patch', 'delete'];

/** The body of every error answer; given codes, `code` is one of them. */
function errorSchema(codes: readonly string[] = []) {
  return {
    type: 'object',
    properties: {
      error: {
        type: 'object',
        properties: {
          code: codes.length ? { type: 'string', enum: codes } : { type: 'string' },
          message: { type: 'string' },
        },
        required: ['code', 'message'],
      },
    },
    required: ['error'],
  };
}

/** A route's error codes by the status their declarations give them (500 for an undeclared one). */
function errorsByStatus(errors: Record<string, string>): Map<string, [code: string, when: string][]> {
  const byStatus = new Map<string, [string, string][]>();
  for (const [code, when] of Object.entries(errors)) {
    const status = String(errorCodeSpec(code)?.status ?? 500);
    byStatus.set(status, [...(byStatus.get(status) ?? []), [code, when]]);
  }
  return byStatus;
}

/** The parameters of a route: its path's (`{name}`), then the query parameters it reads. */
function parametersOf(doc: RouteDoc) {
  return [
    ...[...doc.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1]!,
      in: 'path',
      required: true,
      ...(doc.params?.[m[1]!] ? { description: doc.params[m[1]!] } : {}),
      schema: { type: 'string' },
    })),
    ...Object.entries(doc.query ?? {}).map(([name, description]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema: { type: 'string' },
    })),
  ];
}

/** An OpenAPI 3.1 document of the routes, from the same schemas that validate the bodies. */
export function openApiDocument(
  title: string,
  version: string,
  docs: readonly RouteDoc[],
  auth: boolean,
  isPublic: (path: string) => boolean = () => false,
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const doc of docs) {
    const parameters = parametersOf(doc);
    const ok: Record<string, unknown> = { 'application/json': { schema: {} } };
    if (doc.sse) ok['text/event-stream'] = { schema: { type: 'string' } };
    const listed = Object.entries(doc.responses ?? {});
    // A route that lists none of its success statuses answers 200.
    const responses: Record<string, unknown> = listed.some(([status]) => status.startsWith('2'))
      ? {}
      : { 200: { description: 'OK', content: ok } };
    for (const [status, description] of listed) {
      const code = Number(status);
      responses[status] =
        code >= 400
          ? { description, content: { 'application/json': { schema: errorSchema() } } }
          : code === 204
            ? { description }
            : { description, content: code === 200 ? ok : { 'application/json': { schema: {} } } };
    }
    for (const [status, codes] of errorsByStatus(doc.errors ?? {})) {
      const listedToo = doc.responses?.[status];
      const description = codes.map(([code, when]) => `${code}: ${when}`).join('; ');
      responses[status] = {
        description: listedToo ? `${listedToo}; ${description}` : description,
        // A status listed bare as well may answer codes not named here: the enum would be wrong.
        content: {
          'application/json': { schema: errorSchema(listedToo ? [] : codes.map(([code]) => code)) },
        },
      };
    }
    paths[doc.path] ??= {};
    paths[doc.path]![doc.method] = {
      summary: doc.summary,
      ...(doc.tags ? { tags: doc.tags } : {}),
      ...(parameters.length ? { parameters } : {}),
      // Served without a key: `security: []` overrides the document's bearer requirement.
      ...(auth && isPublic(doc.path.replace(/\{\w+\}/g, 'x')) ? { security: [] } : {}),
      ...(doc.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: doc.body } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title, version },
    ...(auth
      ? {
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
          security: [{ bearer: [] }],
        }
      : {}),
    paths,
  };
}
