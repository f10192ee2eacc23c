import { afterEach, describe, expect, it } from 'vitest';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { parseSSE, post, type Served, serveHelper } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

// Route logic (listing, running, bad input, failed runs) is asked through app.request() in
// agent-routes.test.ts; here what needs a socket: streams, disconnects, limits, keys, shutdown.
describe('HubOS REST', () => {
  it('reports health', async () => {
    served = await serveHelper([]);
    expect((await (await fetch(`${served.url}/health`)).json()) as Json).toMatchObject({
      status: 'ok',
      name: 'test',
      agents: 1,
      runs: 0,
    });
  });

  it('streams SSE events when asked', async () => {
    served = await serveHelper(['Hello there.']);
    const response = await post(
      `${served.url}/api/agents/helper/run`,
      { input: 'hi' },
      { accept: 'text/event-stream' },
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSSE(await response.text());
    expect(events.map((e) => e.event)).toEqual([
      'run-start',
      'step-start',
      'text-delta',
      'text-delta',
      'step-finish',
      'run-finish',
    ]);
    expect(events.at(-1)?.data).toMatchObject({ result: { status: 'completed', text: 'Hello there.' } });
  });

  it('starts async runs, reports their status and cancels them', async () => {
    served = await serveHelper([{ toolCalls: [{ name: 'wait' }] }, 'never']);
    const started = await post(`${served.url}/api/agents/helper/run?async=true`, { input: 'wait' });
    expect(started.status).toBe(202);
    const { runId, href } = (await started.json()) as Json;
    expect(href).toBe(`/api/runs/${runId}`);
    expect(((await (await fetch(`${served.url}${href}`)).json()) as Json).status).toBe('running');
    const cancelled = await post(`${served.url}/api/runs/${runId}/cancel`, {});
    expect(((await cancelled.json()) as Json).status).toBe('cancelled');
    expect(((await (await fetch(`${served.url}${href}`)).json()) as Json).status).toBe('cancelled');
    const again = await post(`${served.url}/api/runs/${runId}/cancel`, {});
    expect(again.status).toBe(409);
    expect((await fetch(`${served.url}/api/runs/nope`)).status).toBe(404);
  });

  it('cancels the run when a streaming client disconnects', async () => {
    served = await serveHelper([{ toolCalls: [{ name: 'wait' }] }, 'never']);
    const controller = new AbortController();
    const response = await fetch(`${served.url}/api/agents/helper/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'wait' }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('tool-call-end')) seen += new TextDecoder().decode((await reader.read()).value);
    expect(served.hubos.runs.running).toBe(1);
    controller.abort();
    await expect.poll(() => served!.hubos.runs.running, { timeout: 2000 }).toBe(0);
  });

  it('refuses bodies over the limit with 413', async () => {
    served = await serveHelper(['ok'], { bodyLimit: 2048 });
    const response = await post(`${served.url}/api/agents/helper/run`, { input: 'x'.repeat(5000) });
    expect(response.status).toBe(413);
    expect(((await response.json()) as Json).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('rate-limits per client with 429 and Retry-After', async () => {
    served = await serveHelper([], { rateLimit: { windowMs: 60_000, max: 3 } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${served.url}/api/agents`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await fetch(`${served.url}/api/agents`);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as Json).error.code).toBe('RATE_LIMITED');
  });

  it('requires a Bearer API key when keys are configured; /health stays open', async () => {
    const key = 'test-key-0123456789abcdef';
    served = await serveHelper([], { apiKeys: [key] });
    const anonymous = await fetch(`${served.url}/api/agents`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as Json).error.code).toBe('UNAUTHORIZED');
    expect(
      (
        await fetch(`${served.url}/api/agents`, {
          headers: { authorization: 'Bearer wrong-key-0123456789ab' },
        })
      ).status,
    ).toBe(401);
    expect(
      (await fetch(`${served.url}/api/agents`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
    expect((await fetch(`${served.url}/health`)).status).toBe(200);
  });

  it('refuses to listen beyond loopback without API keys', async () => {
    const hubos = new HubOS({ host: '0.0.0.0', port: 0 });
    await expect(hubos.serve()).rejects.toThrow('refusing to listen on 0.0.0.0 without API keys');
  });

  it('publishes an OpenAPI 3.1 document of its routes with their parameters (openapi.test.ts: all of it)', async () => {
    served = await serveHelper([]);
    const doc = (await (await fetch(`${served.url}/api/openapi.json`)).json()) as Json;
    expect(doc.openapi).toBe('3.1.0');
    const run = doc.paths['/api/agents/{name}/run'].post;
    expect(run.requestBody.content['application/json'].schema.required).toEqual(['input']);
    expect(run.responses[200].content['text/event-stream']).toBeDefined();
    expect(run.parameters.map((p: Json) => `${p.in} ${p.name}`)).toEqual(['path name', 'query async']);
    for (const path of ['/health', '/api/agents', '/api/runs', '/api/runs/{id}', '/api/owners/{id}'])
      expect(doc.paths[path]).toBeDefined();
    expect(doc.paths['/api/runs/{id}/cancel'].post.parameters[0]).toMatchObject({ name: 'id', in: 'path' });
  });

  it('shuts down gracefully: refuses new work, lets running work finish, cancels it past the deadline', async () => {
    served = await serveHelper(
      [{ delayMs: 200, text: 'finished in time' }, { toolCalls: [{ name: 'wait' }] }],
      {
        shutdownTimeoutMs: 1000,
      },
    );
    const finishing = post(`${served.url}/api/agents/helper/run`, { input: 'slow' });
    await expect.poll(() => served!.hubos.runs.running).toBe(1);
    const stopping = served.hubos.close();
    const refused = await fetch(`${served.url}/api/agents`).catch(() => undefined);
    if (refused) expect(refused.status).toBe(503);
    expect(((await (await finishing).json()) as Json).text).toBe('finished in time');
    await stopping;
  });

  it('cancels work still running at the shutdown deadline', async () => {
    served = await serveHelper([{ toolCalls: [{ name: 'wait' }] }], { shutdownTimeoutMs: 100 });
    const { runId } = (await (
      await post(`${served.url}/api/agents/helper/run?async=true`, { input: 'wait' })
    ).json()) as Json;
    await served.hubos.close();
    expect((await served.hubos.runs.get(runId))?.status).toBe('cancelled');
  });
});

describe('HubOS body limit without Content-Length', () => {
  it('counts a chunked body as it streams and answers 413 past the limit', async () => {
    served = await serveHelper(['ok'], { bodyLimit: 2048 });
    const chunks = [`{"input": "${'x'.repeat(3000)}"}`];
    const body = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const response = await fetch(`${served.url}/api/agents/helper/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as Json).error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
