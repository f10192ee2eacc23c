/**
 * HubOS run route under load: requests/s and p99 latency of POST /api/agents/:name/run (a model
 * that answers instantly with one tool call, then a final answer) against a bare Hono route
 * returning the same JSON, both driven by autocannon in this run.
 */

import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { LanguageModel, ModelChunk } from '../core/index.ts';
import { HubOS } from '../plugins/hubos/hubos.ts';
import { bootKernel } from '../testing/index.ts';
import { autocannon } from './autocannon.ts';
import { noopToolPlugin } from './noop-tool.ts';

const instant: LanguageModel = {
  provider: 'bench',
  modelId: 'instant',
  async *stream(request): AsyncGenerator<ModelChunk> {
    if (request.messages.at(-1)?.role === 'tool') {
      yield { type: 'text-delta', delta: 'done' };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
    } else {
      yield { type: 'tool-call', id: 'c1', name: 'noop', input: {} };
      yield { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 1 } };
    }
  },
};

const kernel = await bootKernel({
  plugins: [noopToolPlugin],
  config: { agents: { bench: { model: instant, tools: ['noop'] } } },
});
const hubos = new HubOS({ kernel, port: 0, rateLimit: false });
hubos.registerAgent('bench', kernel.agent('bench'));
const hubosUrl = await hubos.serve();
const sample = await (
  await fetch(`${hubosUrl}/api/agents/bench/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"input":"go"}',
  })
).json();

const bare = new Hono();
bare.post('/run', async (c) => {
  await c.req.json();
  return c.json(sample);
});
const bareServer = await new Promise<ReturnType<typeof serve>>((resolve) => {
  const server = serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(server));
});
const bareUrl = `http://127.0.0.1:${(bareServer.address() as { port: number }).port}`;

const load = (url: string) => autocannon([url], { connections: 10, seconds: 5, body: '{"input":"go"}' });

// Alternate the two, three rounds each, and compare medians: the machine's noise hits both alike.
const rounds: { bare: Awaited<ReturnType<typeof load>>; hubos: Awaited<ReturnType<typeof load>> }[] = [];
for (let round = 0; round < 3; round++) {
  rounds.push({ bare: await load(`${bareUrl}/run`), hubos: await load(`${hubosUrl}/api/agents/bench/run`) });
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const subject = { rps: median(rounds.map((r) => r.hubos.rps)), p99: median(rounds.map((r) => r.hubos.p99)) };
const baseline = { rps: median(rounds.map((r) => r.bare.rps)), p99: median(rounds.map((r) => r.bare.p99)) };
const errors = rounds.reduce((sum, r) => sum + r.hubos.errors + r.bare.errors, 0);
console.log(
  `HubOS run route: ${Math.round(subject.rps)} req/s, p99 ${subject.p99} ms; ` +
    `bare Hono route: ${Math.round(baseline.rps)} req/s, p99 ${baseline.p99} ms; errors ${errors}; ` +
    `throughput ratio ${(subject.rps / baseline.rps).toFixed(2)}x (target >= 0.50), medians of 3 alternating rounds`,
);
bareServer.close();
await hubos.close();
await kernel.close();
