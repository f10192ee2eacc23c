// The OpenAPI document the server serves lists its own routes as it lists a plugin's: described
// where they are declared (describeRoute), with their parameters, and with the error codes each
// answers at the status the codes' declarations give, the same that answers them.
import { afterEach, describe, expect, it } from 'vitest';
import { defineErrorCodes } from '../../../core/index.ts';
import { openApiDocument, type RouteDoc } from '../../../plugins/hubos/kit/route-doc.ts';
import { ask, type Built, buildHelper } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is checked by the assertions.
type Json = any;

let built: Built | undefined;
afterEach(async () => {
  await built?.close();
  built = undefined;
});

async function documentOf(options: Parameters<typeof buildHelper>[1] = {}): Promise<Json> {
  built = await buildHelper([], options);
  const answer = await ask(built.hubos, 'GET', '/api/openapi.json', {
    headers: options.apiKeys ? { authorization: `Bearer ${'k'.repeat(32)}` } : {},
  });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The statuses a route answers, each with the codes its body's `code` may be. */
function errorCodes(operation: Json): Record<string, string[] | undefined> {
  return Object.fromEntries(
    Object.entries(operation.responses as Record<string, Json>)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, response]) => [
        status,
        response.content['application/json'].schema.properties.error.properties.code.enum,
      ]),
  );
}

describe("the server's own routes in /api/openapi.json", () => {
  it('lists every one of them, with its method', async () => {
    const doc = await documentOf();
    const listed = Object.entries(doc.paths as Record<string, object>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(listed).toEqual(
      expect.arrayContaining([
        'GET /health',
        'GET /api/openapi.json',
        'GET /api/agents',
        'GET /api/agents/{name}',
        'POST /api/agents/{name}/run',
        'GET /api/runs',
        'GET /api/runs/{id}',
        'GET /api/runs/{id}/steps',
        'GET /api/runs/{id}/events',
        'POST /api/runs/{id}/cancel',
        'DELETE /api/runs/{id}',
        'DELETE /api/owners/{id}',
      ]),
    );
  });

  it('gives their path and query parameters, described', async () => {
    const doc = await documentOf();
    const run = doc.paths['/api/agents/{name}/run'].post;
    expect(run.parameters).toEqual([
      {
        name: 'name',
        in: 'path',
        required: true,
        description: expect.any(String),
        schema: { type: 'string' },
      },
      {
        name: 'async',
        in: 'query',
        required: false,
        description: expect.any(String),
        schema: { type: 'string' },
      },
    ]);
    expect(run.requestBody.content['application/json'].schema.required).toEqual(['input']);
    const list = doc.paths['/api/runs'].get;
    expect(list.parameters.map((p: Json) => `${p.in} ${p.name}`)).toEqual(
      ['agent', 'status', 'via', 'sessionId', 'since', 'until', 'limit', 'cursor', 'q'].map(
        (name) => `query ${name}`,
      ),
    );
    // The states and surfaces a filter takes are the ones the query parser accepts.
    expect(list.parameters.find((p: Json) => p.name === 'status').description).toContain('interrupted');
    for (const [path, method] of [
      ['/api/runs/{id}', 'get'],
      ['/api/runs/{id}/steps', 'get'],
      ['/api/runs/{id}/cancel', 'post'],
      ['/api/runs/{id}', 'delete'],
      ['/api/owners/{id}', 'delete'],
    ] as const)
      expect(doc.paths[path][method].parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    expect(doc.paths['/api/runs/{id}/events'].get.parameters.map((p: Json) => p.name)).toEqual([
      'id',
      'after',
    ]);
    expect(doc.paths['/api/agents'].get.parameters).toBeUndefined();
  });

  it('gives the error codes each answers under the status their declarations give', async () => {
    const doc = await documentOf();
    expect(errorCodes(doc.paths['/api/agents/{name}'].get)).toEqual({ 404: ['AGENT_NOT_FOUND'] });
    const run = doc.paths['/api/agents/{name}/run'].post;
    expect(errorCodes(run)).toEqual({
      400: ['INVALID_JSON', 'JSON_TOO_COMPLEX', 'INVALID_BODY', 'BUDGET_INVALID'],
      404: ['AGENT_NOT_FOUND'],
      422: ['BUDGET_EXCEEDED'],
      502: ['MODEL_HTTP_ERROR', 'MODEL_RESPONSE_INVALID'],
      504: ['MODEL_TIMEOUT', 'RUN_TIMEOUT'],
      500: ['MODEL_CONFIG'],
      503: ['STORE_FAILED'],
    });
    expect(run.responses[200].content['text/event-stream']).toBeDefined();
    expect(Object.keys(run.responses)).toContain('202');
    expect(run.responses[404].description).toContain('AGENT_NOT_FOUND: ');
    expect(errorCodes(doc.paths['/api/runs'].get)).toMatchObject({ 400: ['RUN_QUERY_INVALID'] });
    expect(errorCodes(doc.paths['/api/runs/{id}'].delete)).toMatchObject({
      404: ['RUN_NOT_FOUND'],
      409: ['RUN_ACTIVE'],
    });
    expect(doc.paths['/api/runs/{id}'].delete.responses[204]).toEqual({ description: 'Forgotten' });
    expect(errorCodes(doc.paths['/api/runs/{id}/cancel'].post)).toMatchObject({
      404: ['RUN_NOT_FOUND'],
      409: ['RUN_ENDED'],
      504: ['RUN_TIMEOUT'],
    });
    expect(errorCodes(doc.paths['/api/owners/{id}'].delete)).toMatchObject({
      400: ['INVALID_BODY'],
      403: ['FORBIDDEN'],
    });
  });

  it('says which routes need no key, under the prefix the server is given', async () => {
    const doc = await documentOf({ apiKeys: [{ key: 'k'.repeat(32), id: 'k' }] });
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/api/agents'].get.security).toBeUndefined();
    await built!.close();
    const moved = await buildHelper([], { apiPrefix: '/v2' });
    built = moved;
    const answer = await ask(moved.hubos, 'GET', '/v2/openapi.json');
    expect(Object.keys(answer.body.paths)).toContain('/v2/agents/{name}/run');
    expect((await ask(moved.hubos, 'GET', '/v2/agents/helper')).status).toBe(200);
    expect((await ask(moved.hubos, 'GET', '/api/agents/helper')).status).toBe(404);
  });
});

describe('openApiDocument', () => {
  defineErrorCodes('test-openapi', { TEST_DOC_GONE: 410, TEST_DOC_BUSY: 503 });
  const doc = (route: Partial<RouteDoc>) =>
    openApiDocument('t', '1', [{ method: 'get', path: '/x/{id}', summary: 's', ...route }], false).paths[
      '/x/{id}'
    ]!.get as Json;

  it("takes an error code's status from its declaration; an undeclared code is a 500", () => {
    const op = doc({ errors: { TEST_DOC_GONE: 'gone', TEST_DOC_BUSY: 'busy', TEST_DOC_NOBODY: 'odd' } });
    expect(errorCodes(op)).toEqual({
      410: ['TEST_DOC_GONE'],
      503: ['TEST_DOC_BUSY'],
      500: ['TEST_DOC_NOBODY'],
    });
    expect(op.responses[200].description).toBe('OK');
  });

  it('merges a status listed bare with the codes under it, then names no enum', () => {
    const op = doc({ responses: { 410: 'Removed' }, errors: { TEST_DOC_GONE: 'gone' } });
    expect(op.responses[410].description).toBe('Removed; TEST_DOC_GONE: gone');
    expect(errorCodes(op)).toEqual({ 410: undefined });
  });

  it('describes path parameters it is told of, and lists every one of them anyway', () => {
    const op = doc({ params: { other: 'not in the path' } });
    expect(op.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
  });
});
