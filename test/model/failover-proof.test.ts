// Models that fail over, end to end over real sockets: a fake OpenAI-compatible server rate
// limits, fails, then drops its stream mid-answer; the run completes once, on the fallback model,
// and the text a client reads from HubOS's run route has no part twice.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRetryEvent, RunStep } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { createOpenAIProvider } from '../../plugins/models/openai.ts';
import { bootKernel } from '../../testing/index.ts';
import { parseSSE, post } from '../plugins/hubos/helpers.ts';

const ANSWER = 'Hello, world! The backup model answers in full.';
const CUT_AT = 10; // "Hello, wor": what the main model streams before its connection drops

const sse = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
const delta = (content: string) => sse({ choices: [{ index: 0, delta: { content } }] });

/**
 * The fake provider: `gpt-main` answers 429, 503, then a stream cut midway, then 503 for ever;
 * `gpt-backup` answers; any other model is down (503).
 */
async function fakeProvider(): Promise<{ url: string; calls: string[]; server: Server }> {
  const calls: string[] = [];
  let mainCalls = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const { model } = JSON.parse(body) as { model: string };
      calls.push(model);
      if (model === 'gpt-main') {
        mainCalls++;
        if (mainCalls === 1) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
          return res.end(JSON.stringify({ error: { message: 'slow down' } }));
        }
        if (mainCalls === 3) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(delta(ANSWER.slice(0, 5)));
          res.write(delta(ANSWER.slice(5, CUT_AT)));
          // The connection drops mid-answer.
          setTimeout(() => res.socket?.destroy(), 30);
          return;
        }
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: 'overloaded' } }));
      }
      if (model !== 'gpt-backup') {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: `${model} is down` } }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The fallback starts its answer over, in other pieces.
      for (const piece of [ANSWER.slice(0, 7), ANSWER.slice(7, 20), ANSWER.slice(20)])
        res.write(delta(piece));
      res.write(sse({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
      res.write(sse({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 9 } }));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, calls, server };
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A listening HubOS whose agent `helper` runs on these models of the fake provider, in a chain. */
async function serveChain(models: string[]) {
  const fake = await fakeProvider();
  const provider = createOpenAIProvider({ baseURL: fake.url, apiKey: 'k', retryBaseMs: 10, maxRetries: 2 });
  const kernel = await bootKernel({
    config: {
      agents: {
        helper: { description: 'answers', model: models.map((id) => provider.languageModel(id)) },
      },
    },
  });
  const hubos = new HubOS({ kernel, name: 'failover', port: 0, rateLimit: false });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  cleanup = async () => {
    await hubos.close();
    await kernel.close();
    await provider.close?.();
    await new Promise((resolve) => fake.server.close(resolve));
  };
  return { url, fake };
}

describe('a fallback chain over a failing provider', () => {
  it('retries 429 (Retry-After) and 503, retries the dropped stream, fails over, and streams no part twice', async () => {
    const { url, fake } = await serveChain(['gpt-main', 'gpt-backup']);

    const started = Date.now();
    const response = await post(
      `${url}/api/agents/helper/run`,
      { input: 'hi' },
      { accept: 'text/event-stream' },
    );
    const events = parseSSE(await response.text());
    // Retry-After: 1 was honoured before the second attempt.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    const streamed = events.flatMap((e) =>
      e.event === 'text-delta' ? [(e.data as { delta: string }).delta] : [],
    );
    expect(streamed.join('')).toBe(ANSWER);
    const finish = events.filter((e) => e.event === 'run-finish');
    expect(finish).toHaveLength(1);
    const result = (finish[0]!.data as { result: { text: string; status: string; runId: string } }).result;
    expect(result).toMatchObject({ status: 'completed', text: ANSWER });

    const retries = events.filter((e) => e.event === 'model-retry').map((e) => e.data as ModelRetryEvent);
    expect(retries.map((r) => [r.model, r.reason.status, r.next])).toEqual([
      ['openai:gpt-main', 429, 'openai:gpt-main'],
      ['openai:gpt-main', 503, 'openai:gpt-main'],
      ['openai:gpt-main', undefined, 'openai:gpt-main'], // the dropped stream
      ['openai:gpt-main', 503, 'openai:gpt-main'],
      ['openai:gpt-main', 503, 'openai:gpt-main'],
      ['openai:gpt-main', 503, 'openai:gpt-backup'], // stays down: the failover
    ]);
    expect(retries[0]!.delayMs).toBe(1000);
    expect(fake.calls).toEqual([
      'gpt-main',
      'gpt-main',
      'gpt-main',
      'gpt-main',
      'gpt-main',
      'gpt-main',
      'gpt-backup',
    ]);

    // The model step is the fallback's, with every retry on it.
    const { steps } = (await (await fetch(`${url}/api/runs/${result.runId}/steps`)).json()) as {
      steps: RunStep[];
    };
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ kind: 'model', name: 'openai:gpt-backup', status: 'ok' });
    expect(steps[0]!.retries?.map((r) => r.next)).toEqual(retries.map((r) => r.next));
  }, 20_000);

  it("fails the run with the last model's error when every model stays down, keeping the failed model step and its retries", async () => {
    const { url } = await serveChain(['gpt-down', 'gpt-gone']);
    const response = await post(`${url}/api/agents/helper/run`, { input: 'hi' });
    const body = (await response.json()) as {
      error: { code: string; message: string };
      result: { runId: string };
    };
    expect(body.error.code).toBe('MODEL_HTTP_ERROR');
    expect(body.error.message).toContain('gpt-gone is down');
    const { steps } = (await (await fetch(`${url}/api/runs/${body.result.runId}/steps`)).json()) as {
      steps: RunStep[];
    };
    expect(steps).toMatchObject([
      { kind: 'model', name: 'openai:gpt-gone', status: 'error', error: { code: 'MODEL_HTTP_ERROR' } },
    ]);
    // Two provider retries of each model, and the failover between them.
    expect(steps[0]!.retries?.map((r) => [r.model, r.next])).toEqual([
      ['openai:gpt-down', 'openai:gpt-down'],
      ['openai:gpt-down', 'openai:gpt-down'],
      ['openai:gpt-down', 'openai:gpt-gone'],
      ['openai:gpt-gone', 'openai:gpt-gone'],
      ['openai:gpt-gone', 'openai:gpt-gone'],
    ]);
  });
});
