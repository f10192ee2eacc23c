import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { executeTool } from '../../../core/index.ts';
import { startHttpMcpServer } from '../../fixtures/mcp/http-server.ts';
import { bootMcp } from './client-helpers.ts';

/** A proxy in front of the fixture server that answers 413 to large bodies, as a gateway would. */
async function limitingProxy(upstream: string) {
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > 2_000) {
        res.writeHead(413, { 'content-type': 'text/plain' }).end('payload too large');
        return;
      }
      const up = request(upstream, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
}

describe('mcp client: an HTTP error answering one call', () => {
  it('fails that call only: the connection stays up and the next call works', async () => {
    const upstream = await startHttpMcpServer();
    onTestFinished(() => upstream.stop());
    const kernel = await bootMcp({ servers: { h: { url: await limitingProxy(upstream.url) } } });
    const env = {
      signal: new AbortController().signal,
      agentId: 'a',
      sandbox: kernel.sandbox,
      store: kernel.store,
    };
    const big = await executeTool(kernel.registry, 'h_echo', { text: 'x'.repeat(5_000) }, env);
    expect(big.ok).toBe(false);
    if (!big.ok) expect(big.error.message).toMatch(/refused the call with HTTP 413: .*payload too large/);
    expect(kernel.service('mcp').clients.get('h')?.state).toBe('ready');
    const small = await executeTool(kernel.registry, 'h_echo', { text: 'small' }, env);
    expect(small).toEqual({ ok: true, output: 'http: small' });
  });
});
