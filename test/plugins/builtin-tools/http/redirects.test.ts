import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DnsResolver, httpTools } from '../../../../plugins/builtin-tools/http/index.ts';
import { call, failure, output } from './helpers.ts';
import { type LocalServer, localServer, sendJson } from './local-server.ts';

let server: LocalServer;
let other: LocalServer;

beforeAll(async () => {
  other = await localServer((req, res) => sendJson(res, { other: true, headers: req.headers }));
  server = await localServer((req, res) => {
    const url = new URL(req.path, 'http://x');
    const to = url.searchParams.get('to');
    if (url.pathname === '/redirect' && to) {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to });
      return res.end();
    }
    if (url.pathname === '/loop') {
      res.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}` });
      return res.end();
    }
    sendJson(res, { method: req.method, path: req.path, body: req.body, headers: req.headers });
  });
});
afterAll(async () => {
  await server.close();
  await other.close();
});

const allowed = httpTools({ allowHosts: ['127.0.0.1'] });
const redirect = (to: string, status = 302) =>
  `${server.url}/redirect?status=${status}&to=${encodeURIComponent(to)}`;
type Echo = { method: string; path: string; body: string; headers: Record<string, string> };

describe('redirects', () => {
  it('are followed, and the result names the final URL', async () => {
    const out = output(await call(allowed, 'http_get', { url: redirect('/final?x=1') }));
    expect(out.status).toBe(200);
    expect(out.url).toBe(`${server.url}/final?x=1`);
    expect((out.body as Echo).path).toBe('/final?x=1');
  });

  it.each([
    [303, 'POST', 'GET'],
    [301, 'POST', 'GET'],
    [302, 'POST', 'GET'],
    [303, 'PUT', 'GET'],
    [302, 'PUT', 'PUT'],
    [307, 'POST', 'POST'],
    [308, 'PUT', 'PUT'],
  ])('%i after %s continues as %s', async (status, method, expected) => {
    const tool = method === 'POST' ? 'http_post' : 'http_put';
    const out = output(await call(allowed, tool, { url: redirect('/next', status), body: { k: 'v' } }));
    const echo = out.body as Echo;
    expect(echo.method).toBe(expected);
    if (expected === 'GET') {
      expect(echo.body).toBe('');
      expect(echo.headers['content-type']).toBeUndefined();
    } else {
      expect(JSON.parse(echo.body)).toEqual({ k: 'v' });
    }
  });

  it('keep credentials on the same origin and drop them on another', async () => {
    const headers = { authorization: 'Bearer secret', 'x-other': 'kept' };
    const same = output(await call(allowed, 'http_get', { url: redirect('/next'), headers }));
    expect((same.body as Echo).headers.authorization).toBe('Bearer secret');
    const cross = output(await call(allowed, 'http_get', { url: redirect(`${other.url}/`), headers }));
    const seen = (cross.body as Echo).headers;
    expect(seen.authorization).toBeUndefined();
    expect(seen['x-other']).toBe('kept');
  });

  it('stop after 5 by default', async () => {
    const before = server.seen.length;
    const message = failure(await call(allowed, 'http_get', { url: `${server.url}/loop` }));
    expect(message).toMatch(/too many redirects: stopped after 5/);
    expect(server.seen.length - before).toBe(6);
  });

  it('stop after maxRedirects', async () => {
    const tools = httpTools({ allowHosts: ['127.0.0.1'], maxRedirects: 1 });
    const before = server.seen.length;
    expect(failure(await call(tools, 'http_get', { url: `${server.url}/loop` }))).toMatch(/stopped after 1/);
    expect(server.seen.length - before).toBe(2);
  });

  it('to a metadata address are refused', async () => {
    const message = failure(
      await call(allowed, 'http_get', { url: redirect('http://169.254.169.254/latest/') }),
    );
    expect(message).toMatch(
      /redirect to http:\/\/169\.254\.169\.254\/latest\/ refused: blocked: 169\.254\.169\.254 is a cloud metadata address/,
    );
  });

  it('to a local server that is not allowed are refused without reaching it', async () => {
    // The first server is allowed by name only; the second is at an address nobody allowed.
    const resolver = vi.fn<DnsResolver>(async (host) =>
      host === 'trusted.test' || host === 'evil.test' ? [{ address: '127.0.0.1', family: 4 }] : [],
    );
    const tools = httpTools({ allowHosts: ['trusted.test'], resolver });
    const start = `http://trusted.test:${server.port}/redirect?to=`;
    for (const target of [
      `${other.url}/`,
      `http://evil.test:${other.port}/`,
      `http://[::1]:${other.port}/`,
    ]) {
      const message = failure(await call(tools, 'http_get', { url: start + encodeURIComponent(target) }));
      expect(message).toMatch(/^tool "http_get" failed: redirect to \S+ refused: blocked: /);
    }
    expect(other.seen).toHaveLength(1); // only the cross-origin test above reached it
  });

  it('to another scheme are refused', async () => {
    const message = failure(await call(allowed, 'http_get', { url: redirect('file:///etc/passwd') }));
    expect(message).toMatch(/refused: only http and https URLs are allowed, not file/);
  });
});
