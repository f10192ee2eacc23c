import { gzipSync } from 'node:zlib';
import { invokeTool } from 'hubos/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_CONFIG_SCHEMA, httpTools } from '../../../../plugins/builtin-tools/http/index.ts';
import { call, failure, output } from './helpers.ts';
import { type LocalServer, localServer, sendJson } from './local-server.ts';

let server: LocalServer;
// The test server is on loopback: allowHosts is what lets the tools reach it.
const tools = httpTools({ allowHosts: ['127.0.0.1'], maxBodyBytes: 1000 });

beforeAll(async () => {
  server = await localServer(async (req, res) => {
    const [path] = req.path.split('?');
    if (path === '/json') return sendJson(res, { hello: 'world', n: 1 });
    if (path === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-extra': 'yes' });
      return res.end('plain text');
    }
    if (path === '/echo') return sendJson(res, req);
    if (path === '/missing') return sendJson(res, { error: 'not here' }, 404);
    if (path === '/empty') return res.writeHead(204).end();
    if (path === '/gzip') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      return res.end(gzipSync(JSON.stringify({ zipped: true })));
    }
    if (path === '/binary') {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    }
    if (path === '/endless') {
      // Never ends: only the body cap stops the read.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('x'.repeat(256)), 1);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (path === '/slow') return; // Never answers.
    res.writeHead(500).end('unexpected path');
  });
});
afterAll(() => server.close());

describe('http tools', () => {
  it('are the four methods, needing net:http', () => {
    expect(tools.map((t) => t.name)).toEqual(['http_get', 'http_post', 'http_put', 'http_delete']);
    for (const tool of tools) expect(tool.permissions).toEqual(['net:http']);
    expect(HTTP_CONFIG_SCHEMA.additionalProperties).toBe(false);
  });

  it('GET parses a JSON body and reports status, headers and the final URL', async () => {
    const out = output(await call(tools, 'http_get', { url: `${server.url}/json` }));
    expect(out).toMatchObject({ status: 200, body: { hello: 'world', n: 1 }, truncated: false });
    expect(out.headers['content-type']).toBe('application/json');
    expect(out.url).toBe(`${server.url}/json`);
  });

  it('GET returns other content types as text', async () => {
    const out = output(await call(tools, 'http_get', { url: `${server.url}/text` }));
    expect(out.body).toBe('plain text');
    expect(out.headers['x-extra']).toBe('yes');
  });

  it('adds query parameters to the ones already in the URL, encoded', async () => {
    const query = { b: 2, c: true, s: 'a b&c' };
    const out = output(await call(tools, 'http_get', { url: `${server.url}/echo?a=1`, query }));
    expect((out.body as { path: string }).path).toBe('/echo?a=1&b=2&c=true&s=a+b%26c');
  });

  it('sends the given headers', async () => {
    const headers = { 'X-Token': 'secret', Accept: 'application/json' };
    const out = output(await call(tools, 'http_get', { url: `${server.url}/echo`, headers }));
    const seen = (out.body as { headers: Record<string, string> }).headers;
    expect(seen).toMatchObject({ 'x-token': 'secret', accept: 'application/json' });
    expect(seen['user-agent']).toBeTruthy();
  });

  it('POST sends an object body as JSON', async () => {
    const out = output(await call(tools, 'http_post', { url: `${server.url}/echo`, body: { a: [1, 2] } }));
    const seen = out.body as { method: string; body: string; headers: Record<string, string> };
    expect(seen.method).toBe('POST');
    expect(JSON.parse(seen.body)).toEqual({ a: [1, 2] });
    expect(seen.headers['content-type']).toBe('application/json');
  });

  it('PUT sends a string body as it is, keeping a given content type', async () => {
    const input = { url: `${server.url}/echo`, body: '<a/>', headers: { 'content-type': 'application/xml' } };
    const seen = output(await call(tools, 'http_put', input)).body as {
      method: string;
      body: string;
      headers: Record<string, string>;
    };
    expect(seen).toMatchObject({ method: 'PUT', body: '<a/>' });
    expect(seen.headers['content-type']).toBe('application/xml');
  });

  it('DELETE works, and an empty body comes back as an empty string', async () => {
    const out = output(await call(tools, 'http_delete', { url: `${server.url}/empty` }));
    expect(out).toMatchObject({ status: 204, body: '' });
    expect(server.seen.at(-1)?.method).toBe('DELETE');
  });

  it('returns error statuses as results for the model to read', async () => {
    const out = output(await call(tools, 'http_get', { url: `${server.url}/missing` }));
    expect(out).toMatchObject({ status: 404, body: { error: 'not here' } });
  });

  it('decompresses gzip bodies', async () => {
    expect(output(await call(tools, 'http_get', { url: `${server.url}/gzip` })).body).toEqual({
      zipped: true,
    });
  });

  it('describes binary bodies instead of returning bytes', async () => {
    const out = output(await call(tools, 'http_get', { url: `${server.url}/binary` }));
    expect(out.body).toMatch(/binary body: 8 bytes of image\/png/);
  });

  it('stops reading past maxBodyBytes and says the body was truncated', async () => {
    const out = output(await call(tools, 'http_get', { url: `${server.url}/endless` }));
    expect(out.truncated).toBe(true);
    expect(out.body).toBe('x'.repeat(1000));
  });

  it('times out with a clear message', async () => {
    const started = Date.now();
    const message = failure(await call(tools, 'http_get', { url: `${server.url}/slow`, timeout: 150 }));
    expect(message).toMatch(/timed out after 150 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('stops when the run is cancelled', async () => {
    const tool = tools.find((t) => t.name === 'http_get')!;
    const started = Date.now();
    const result = await invokeTool(tool, { url: `${server.url}/slow` }, { signal: AbortSignal.timeout(50) });
    expect(result.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('rejects a timeout above the maximum before any request', async () => {
    const result = await call(tools, 'http_get', { url: `${server.url}/json`, timeout: 600_000 });
    expect(result.ok ? undefined : result.error.code).toBe('TOOL_INPUT_INVALID');
  });

  it('reports connection failures with their code', async () => {
    const closed = await localServer();
    await closed.close();
    const message = failure(await call(tools, 'http_get', { url: `${closed.url}/` }));
    expect(message).toMatch(/ECONNREFUSED/);
  });

  it('refuses URLs that are not absolute http(s) URLs', async () => {
    expect(failure(await call(tools, 'http_get', { url: '/relative' }))).toMatch(/not an absolute URL/);
    expect(failure(await call(tools, 'http_get', { url: 'file:///etc/passwd' }))).toMatch(
      /only http and https URLs are allowed, not file/,
    );
    expect(failure(await call(tools, 'http_get', { url: 'ftp://127.0.0.1/' }))).toMatch(/not ftp/);
    expect(failure(await call(tools, 'http_get', { url: `http://u:p@127.0.0.1:${server.port}/` }))).toMatch(
      /credentials in the URL/,
    );
  });
});
