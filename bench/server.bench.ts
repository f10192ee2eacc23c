/**
 * HubOS run route under load: requests/s and p99 latency of POST /api/agents/:name/run (a model
 * that answers instantly with one tool call, then a final answer) against a bare Hono route
 * returning the same JSON, both driven by autocannon in this run.
 */
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { defineTool, type LanguageModel, type ModelChunk, type Plugin } from '../core/index.ts';
import { HubOS } from '../plugins/hubos/hubos.ts';
import { bootKernel } from '../testing/index.ts';

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
const tools: Plugin = {
  name: 'bench-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('bench-tools', (registry) =>
      registry.register(
        defineTool({
          name: 'noop',
          description: 'Does nothing.',
          inputSchema: { type: 'object' },
          handler: () => 'ok',
        }),
      ),
    );
  },
};

const kernel = await bootKernel({
  plugins: [tools],
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

async function load(url: string) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"input":"go"}',
    connections: 10,
    duration: 5,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const baseline = await load(`${bareUrl}/run`);
const subject = await load(`${hubosUrl}/api/agents/bench/run`);
console.log(
  `HubOS run route: ${Math.round(subject.rps)} req/s, p99 ${subject.p99} ms (errors ${subject.errors}); ` +
    `bare Hono route: ${Math.round(baseline.rps)} req/s, p99 ${baseline.p99} ms; ` +
    `throughput ratio ${(subject.rps / baseline.rps).toFixed(2)}x (target >= 0.50)`,
);
bareServer.close();
await hubos.close();
await kernel.close();
