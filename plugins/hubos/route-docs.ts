import type { JSONSchemaObject } from '../../core/index.ts';

/** What the OpenAPI document says of one route; routes register theirs as they are added. */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI path, e.g. `/api/agents/{name}`. */
  path: string;
  summary: string;
  tags?: string[];
  /** The JSON Schema that validates the body. */
  body?: JSONSchemaObject;
  /** Also answers `text/event-stream` when asked. */
  sse?: boolean;
  responses?: Record<string, string>;
}

const ERROR_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

/** An OpenAPI 3.1 document of the routes, from the same schemas that validate the bodies. */
export function openApiDocument(title: string, version: string, docs: readonly RouteDoc[], auth: boolean) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const doc of docs) {
    const parameters = [...doc.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const ok: Record<string, unknown> = { 'application/json': { schema: {} } };
    if (doc.sse) ok['text/event-stream'] = { schema: { type: 'string' } };
    const responses: Record<string, unknown> = {
      200: { description: doc.responses?.['200'] ?? 'OK', content: ok },
    };
    for (const [status, description] of Object.entries(doc.responses ?? {})) {
      if (status !== '200')
        responses[status] = { description, content: { 'application/json': { schema: ERROR_SCHEMA } } };
    }
    paths[doc.path] ??= {};
    paths[doc.path]![doc.method] = {
      summary: doc.summary,
      ...(doc.tags ? { tags: doc.tags } : {}),
      ...(parameters.length ? { parameters } : {}),
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
