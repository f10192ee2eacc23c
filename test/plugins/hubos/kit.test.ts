/**
 * The HTTP kit from a plugin author's side: a plugin mounts its own Hono sub-app through the routes
 * hook, using only `hubos/server` and `hubos`, and gets what built-in routes get.
 */
import { request as httpRequest } from 'node:http';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { defineErrorCodes, type Kernel, type Plugin } from '../../../core/index.ts';
import hubos from '../../../plugins/hubos/index.ts';
import {
  describeRoute,
  getHubOSHooks,
  HttpError,
  type HubOSEnv,
  readBody,
  sseResponse,
} from '../../../plugins/hubos/server.ts';
import { bootKernel } from '../../../testing/index.ts';

const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';
const errors = defineErrorCodes('test-notes', {
  NOTE_NOT_FOUND: 404,
  NOTES_BUSY: { status: 503, headers: { 'retry-after': '3' } },
});
const NOTE = {
  type: 'object',
  properties: { text: { type: 'string', minLength: 1, maxLength: 100 } },
  required: ['text'],
  additionalProperties: false,
} as const;

/** A third-party plugin: notes kept per caller, under `<api>/notes`. */
const notes: Plugin = {
  name: 'notes',
  apply(kernel) {
    getHubOSHooks(kernel).routes.tap('notes', ({ api, mount }) => {
      const byCaller = new Map<string, string[]>();
      const app = new Hono<HubOSEnv>()
        .post(
          '/',
          describeRoute({ summary: 'Add a note', tags: ['notes'], body: NOTE, responses: { 201: 'Added' } }),
          async (c) => {
            const { text } = await readBody(c, NOTE);
            const mine = byCaller.get(c.get('principal').id) ?? [];
            byCaller.set(c.get('principal').id, [...mine, text]);
            return c.json({ text, by: c.get('principal') }, 201);
          },
        )
        .get('/', describeRoute({ summary: "The caller's notes", tags: ['notes'] }), (c) =>
          c.json({ notes: byCaller.get(c.get('principal').id) ?? [] }),
        )
        .get(
          '/:index',
          describeRoute({ summary: 'One note', tags: ['notes'], responses: { 404: 'No such note' } }),
          (c) => {
            const note = byCaller.get(c.get('principal').id)?.[Number(c.req.param('index'))];
            if (note === undefined) throw errors.create('NOTE_NOT_FOUND', `no note ${c.req.param('index')}`);
            return c.json({ note });
          },
        )
        .get('/busy/now', (c) => {
          throw errors.create('NOTES_BUSY', `busy for ${c.req.path}`);
        })
        .get('/files/*', (c) => c.json({ path: c.req.path, by: c.get('principal').id }))
        .get('/echo/body', async (c) => c.text(String((await c.req.text()).length)))
        .get('/teapot/now', () => {
          throw new HttpError(418, 'TEAPOT', 'short and stout');
        })
        .get('/broken/now', () => {
          throw new Error('a bug');
        })
        .get('/events/now', (c) =>
          sseResponse(
            c,
            (async function* () {
              yield { type: 'tick', n: 1 };
              yield { type: 'tick', n: 2 };
            })(),
          ),
        );
      mount(`${api}/notes`, app);
    });
  },
};

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

async function serve(server: Record<string, unknown> = {}) {
  const kernel = await bootKernel({
    plugins: [hubos(), notes],
    config: { server: { apiKeys: [KEY_A, KEY_B], bodyLimit: 2048, ...server } },
  });
  kernels.push(kernel);
  const server_ = kernel.service('hubos');
  await server_.init();
  const request = (path: string, init: RequestInit & { key?: string | undefined } = {}) => {
    const { key = KEY_A, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key) headers.set('authorization', `Bearer ${key}`);
    return server_.app.request(path, { ...rest, headers });
  };
  const post = (body: unknown, key?: string) =>
    request('/api/notes', {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
      ...(key === undefined ? {} : { key }),
    });
  return { kernel, request, post };
}

describe('a plugin route mounted with the HTTP kit', () => {
  it('sits behind the API keys, and each key is its own caller', async () => {
    const { request, post } = await serve();
    const anonymous = await request('/api/notes', { key: '' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.json()).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'missing API key: send "Authorization: Bearer <key>"' },
    });
    expect((await request('/api/notes', { key: 'wrong-key-0123456789' })).status).toBe(401);

    const added = await post({ text: 'hello' });
    expect(added.status).toBe(201);
    const { by } = (await added.json()) as { by: { id: string; kind: string } };
    expect(by.kind).toBe('api-key');
    expect(by.id).toMatch(/^key:[0-9a-f]{16}$/);
    expect(by.id).not.toContain(KEY_A);
    expect(await (await request('/api/notes')).json()).toEqual({ notes: ['hello'] });
    expect(await (await request('/api/notes', { key: KEY_B })).json()).toEqual({ notes: [] });
  });

  it('validates bodies with the schema it documents, and says what is wrong', async () => {
    const { post } = await serve();
    const invalid = await post({ text: '', extra: 1 });
    expect(invalid.status).toBe(400);
    const { error } = (await invalid.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('INVALID_BODY');
    expect(error.message).toContain('text');
    const notJson = await post('{"text": ');
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe('INVALID_JSON');
    const huge = await post({ text: 'x'.repeat(5000) });
    expect(huge.status).toBe(413);
  });

  it("answers the plugin's own codes with their declared status and headers; a bug is a JSON 500", async () => {
    const { request } = await serve();
    const missing = await request('/api/notes/7');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'NOTE_NOT_FOUND', message: 'no note 7' } });
    const busy = await request('/api/notes/busy/now');
    expect([busy.status, busy.headers.get('retry-after')]).toEqual([503, '3']);
    expect((await request('/api/notes/teapot/now')).status).toBe(418);
    const broken = await request('/api/notes/broken/now');
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ error: { code: 'INTERNAL', message: 'a bug' } });
  });

  it('streams events as SSE named by their type', async () => {
    const { request } = await serve();
    const response = await request('/api/notes/events/now');
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text).toContain('event: tick\ndata: {"type":"tick","n":1}');
    expect(text).toContain('data: {"type":"tick","n":2}');
  });

  it('documents its described routes in the OpenAPI document, with path parameters and the body schema', async () => {
    const { request } = await serve({ apiPrefix: '/v1' });
    const doc = (await (await request('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { summary: string; requestBody?: unknown; parameters?: unknown }>>;
    };
    expect(doc.paths['/v1/notes']?.post?.summary).toBe('Add a note');
    expect(doc.paths['/v1/notes']?.post?.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: NOTE } },
    });
    // Listed success statuses replace the default 200; error statuses get the error body's schema.
    const added = doc.paths['/v1/notes']?.post as unknown as {
      responses: Record<string, { content?: object }>;
    };
    expect(Object.keys(added.responses)).toEqual(['201']);
    expect(added.responses['201']?.content).toHaveProperty(['application/json']);
    const one = doc.paths['/v1/notes/{index}']?.get as unknown as { responses: Record<string, unknown> };
    expect(Object.keys(one.responses).sort()).toEqual(['200', '404']);
    expect(JSON.stringify(one.responses['404'])).toContain('"required":["code","message"]');
    expect(doc.paths['/v1/notes']?.get?.summary).toBe("The caller's notes");
    expect(doc.paths['/v1/notes/{index}']?.get?.parameters).toEqual([
      { name: 'index', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    // Routes without describeRoute stay out of the document.
    expect(doc.paths['/v1/notes/busy/now']).toBeUndefined();
  });

  it('is rate limited per caller like the built-in routes', async () => {
    const { request } = await serve({ rateLimit: { windowMs: 60_000, max: 2 } });
    expect((await request('/api/notes')).status).toBe(200);
    expect((await request('/api/notes')).status).toBe(200);
    const limited = await request('/api/notes');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect((await request('/api/notes', { key: KEY_B })).status).toBe(200);
  });

  it('cannot be reached without a key through a path that ends like a public one', async () => {
    const { request } = await serve();
    expect((await request('/api/notes/files/.well-known/agent-card.json', { key: '' })).status).toBe(401);
    expect((await request('/api/notes/files/x/.well-known/agent-card.json', { key: '' })).status).toBe(401);
    expect((await request('/api/notes/files/.well-known/agent-card.json')).status).toBe(200);
  });

  it('never hands a route the body of a GET, however large', async () => {
    // Any free port: the default (3000) may be taken by a server already running on the machine.
    const { kernel } = await serve({ port: 0 });
    const url = new URL(await kernel.service('hubos').serve());
    const answer = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: '/api/notes/echo/body',
          method: 'GET',
          headers: { authorization: `Bearer ${KEY_A}`, 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve(`${res.statusCode} ${text}`));
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 10; i++) req.write('x'.repeat(1000));
      req.end();
    });
    // Node's adapter gives a GET no body: a route reads none, so there is nothing to count.
    expect(answer).toBe('200 0');
  });
});

describe('mounting', () => {
  const mounting = (path: string, app: Hono<HubOSEnv>): Plugin => ({
    name: 'mounter',
    apply: (kernel) => getHubOSHooks(kernel).routes.tap('mounter', ({ mount }) => mount(path, app)),
  });
  const init = async (plugin: Plugin) => {
    const kernel = await bootKernel({ plugins: [hubos(), plugin] });
    kernels.push(kernel);
    return kernel.service('hubos').init();
  };

  it('refuses a path served without an API key', async () => {
    await expect(
      init(
        mounting(
          '/ui/extra',
          new Hono<HubOSEnv>().get('/', (c) => c.text('x')),
        ),
      ),
    ).rejects.toThrow('cannot mount routes at "/ui/extra": it is served without an API key');
    await expect(
      init(
        mounting(
          '/',
          new Hono<HubOSEnv>().get('/x', (c) => c.text('x')),
        ),
      ),
    ).rejects.toThrow('served without an API key');
  });

  it('refuses a route the server already answers', async () => {
    await expect(
      init(
        mounting(
          '/api/agents',
          new Hono<HubOSEnv>().get('/', (c) => c.text('mine')),
        ),
      ),
    ).rejects.toThrow('cannot mount GET /api/agents: the server already answers it');
  });
});
