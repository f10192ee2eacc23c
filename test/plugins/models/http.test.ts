import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HubosError } from '../../../core/index.ts';
import {
  extractErrorMessage,
  HttpClient,
  type HttpClientOptions,
  retryAfterMs,
} from '../../../plugins/models/http.ts';
import { type FakeServer, type Handler, rejection, sendJSON, startServer } from './server.ts';

let server: FakeServer | undefined;
let client: HttpClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Handler, options: Partial<HttpClientOptions> = {}) {
  server = await startServer(handler);
  client = new HttpClient({ provider: 'acme', authHint: 'set ACME_KEY', retryBaseMs: 1, ...options });
  return { server, client };
}

const post = (c: HttpClient, url: string, signal = new AbortSignal()) =>
  c.post(`${url}/v1/x`, { hello: 'world' }, { headers: { 'x-test': '1' }, signal });

function hubosError(error: unknown): HubosError {
  expect(error).toBeInstanceOf(HubosError);
  return error as HubosError;
}

describe('HttpClient', () => {
  it('POSTs JSON with the given headers and returns the body', async () => {
    const { server, client } = await setup((_req, res) => sendJSON(res, 200, { ok: true }));
    const response = await post(client, server.url, AbortSignal.timeout(5000));
    expect(await response.json()).toEqual({ ok: true });
    const [received] = server.requests;
    expect(received?.method).toBe('POST');
    expect(received?.body).toEqual({ hello: 'world' });
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received?.headers['x-test']).toBe('1');
  });

  it('does not retry a 400 and surfaces the provider message and status', async () => {
    const { server, client } = await setup((_req, res) =>
      sendJSON(res, 400, { error: { message: 'bad model', type: 'invalid_request_error' } }),
    );
    const error = hubosError(await rejection(post(client, server.url, AbortSignal.timeout(5000))));
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toBe('acme request failed with HTTP 400: bad model');
    expect(error.details).toMatchObject({ provider: 'acme', status: 400 });
    expect(server.requests).toHaveLength(1);
  });

  it('says the key was rejected on 401/403 and how to fix it', async () => {
    const { server, client } = await setup((_req, res) => sendJSON(res, 403, { error: { message: 'nope' } }));
    const error = hubosError(await rejection(post(client, server.url, AbortSignal.timeout(5000))));
    expect(error.message).toBe('acme rejected the API key (HTTP 403: nope); set ACME_KEY');
    expect(error.details.status).toBe(403);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 429 after Retry-After: 0', async () => {
    const { server, client } = await setup((_req, res, i) =>
      i === 0
        ? sendJSON(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' })
        : sendJSON(res, 200, {}),
    );
    await post(client, server.url, AbortSignal.timeout(5000));
    expect(server.requests).toHaveLength(2);
  });

  it('honours Retry-After: 1 (waits about a second)', async () => {
    const { server, client } = await setup(
      (_req, res, i) => (i === 0 ? sendJSON(res, 429, {}, { 'retry-after': '1' }) : sendJSON(res, 200, {})),
      { retryBaseMs: 0 },
    );
    const started = Date.now();
    await post(client, server.url, AbortSignal.timeout(5000));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  it('retries 503 twice then succeeds', async () => {
    const { server, client } = await setup((_req, res, i) =>
      i < 2 ? sendJSON(res, 503, { error: { message: 'overloaded' } }) : sendJSON(res, 200, { third: true }),
    );
    const response = await post(client, server.url, AbortSignal.timeout(5000));
    expect(await response.json()).toEqual({ third: true });
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries and says so', async () => {
    const { server, client } = await setup(
      (_req, res) => sendJSON(res, 500, { error: { message: 'boom' } }),
      {
        maxRetries: 1,
      },
    );
    const error = hubosError(await rejection(post(client, server.url, AbortSignal.timeout(5000))));
    expect(error.message).toBe('acme request failed with HTTP 500: boom (gave up after 1 retry)');
    expect(error.details.status).toBe(500);
    expect(server.requests).toHaveLength(2);
  });

  it('retries connection errors, then fails with MODEL_HTTP_ERROR', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    client = new HttpClient({ provider: 'acme', authHint: '', retryBaseMs: 1 });
    const error = hubosError(
      await rejection(post(client, `http://127.0.0.1:${port}`, AbortSignal.timeout(5000))),
    );
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(error.message).toMatch(/acme connection failed .*ECONNREFUSED.*gave up after 2 retries/);
  });

  it('times out waiting for headers with MODEL_TIMEOUT, without retrying', async () => {
    const { server, client } = await setup(() => {}, { timeoutMs: 100 });
    const started = Date.now();
    const error = hubosError(await rejection(post(client, server.url, AbortSignal.timeout(5000))));
    expect(error.code).toBe('MODEL_TIMEOUT');
    expect(error.message).toContain('did not answer within 100 ms');
    // undici checks its timers about once a second.
    expect(Date.now() - started).toBeLessThan(2500);
    expect(server.requests).toHaveLength(1);
  });

  it('times out when the body goes idle', async () => {
    const { server, client } = await setup(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
      },
      { timeoutMs: 100 },
    );
    const response = await post(client, server.url, AbortSignal.timeout(5000));
    const error = hubosError(await rejection(response.json()));
    expect(error.code).toBe('MODEL_TIMEOUT');
  });

  it('aborts at once while waiting for headers and closes the connection', async () => {
    const { server, client } = await setup(() => {});
    const controller = new AbortController();
    const pending = post(client, server.url, controller.signal);
    await waitFor(() => server.requests.length === 1);
    const reason = new Error('user cancelled');
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
    await server.requests[0]?.closed;
  });

  it('aborts at once during a backoff wait', async () => {
    const { server, client } = await setup((_req, res) => sendJSON(res, 429, {}, { 'retry-after': '30' }));
    const controller = new AbortController();
    const pending = post(client, server.url, controller.signal);
    await waitFor(() => server.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    controller.abort();
    const error = (await rejection(pending)) as Error;
    expect(error.name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(200);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses requests once closed', async () => {
    const { server, client } = await setup((_req, res) => sendJSON(res, 200, {}));
    await client.close();
    const error = hubosError(await rejection(post(client, server.url, AbortSignal.timeout(5000))));
    expect(error.code).toBe('MODEL_HTTP_ERROR');
    expect(server.requests).toHaveLength(0);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds, HTTP dates and retry-after-ms, capped at 60 s', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after': '0.5' })).toBe(500);
    expect(retryAfterMs({ 'retry-after': '3600' })).toBe(60_000);
    expect(retryAfterMs({ 'retry-after-ms': '150', 'retry-after': '9' })).toBe(150);
    const date = retryAfterMs({ 'retry-after': new Date(Date.now() + 10_000).toUTCString() });
    expect(date).toBeGreaterThan(8000);
    expect(date).toBeLessThanOrEqual(10_000);
    expect(retryAfterMs({ 'retry-after': new Date(Date.now() - 10_000).toUTCString() })).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs({})).toBeUndefined();
  });
});

describe('extractErrorMessage', () => {
  it('finds the message of the common error shapes', () => {
    expect(extractErrorMessage('{"error":{"message":"a"}}')).toBe('a');
    expect(extractErrorMessage('{"type":"error","error":{"type":"x","message":"b"}}')).toBe('b');
    expect(extractErrorMessage('{"error":"c"}')).toBe('c');
    expect(extractErrorMessage('{"message":"d"}')).toBe('d');
    expect(extractErrorMessage('<html>\n  Bad Gateway\n</html>')).toBe('<html> Bad Gateway </html>');
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}
