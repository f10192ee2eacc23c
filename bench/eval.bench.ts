/**
 * evaluate() at scale: CASES cases (HUBOS_BENCH_EVAL_CASES, default 1,000) at concurrency 50,
 * against a model that answers each call in 100 ms, each case two model calls (a tool call, then
 * the answer), each case a recorded run in a SQLite store (as `hubos eval` keeps them), its steps
 * priced, its result stored in the experiment. The ideal is CASES × 2 × 100 ms / 50 (4 s for
 * 1,000); the target is within 1.5× of it: what evaluate() adds over the model's own time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, type ModelRequest, SqliteStore } from '../core/index.ts';
import { bootKernel, ScriptedModel } from '../testing/index.ts';

const CASES = Number(process.env.HUBOS_BENCH_EVAL_CASES ?? 1_000);
const CONCURRENCY = 50;
const MODEL_DELAY_MS = 100;

const model = {
  provider: 'scripted',
  modelId: 'bench',
  stream(request: ModelRequest) {
    const last = request.messages[request.messages.length - 1];
    const step =
      last?.role === 'tool'
        ? { text: `The answer is ${last.content}.`, delayMs: MODEL_DELAY_MS }
        : { toolCalls: [{ name: 'lookup', input: { key: last?.content ?? '' } }], delayMs: MODEL_DELAY_MS };
    return new ScriptedModel([step], { modelId: 'bench' }).stream(request);
  },
};

const dir = mkdtempSync(join(tmpdir(), 'hubos-eval-bench-'));
const kernel = await bootKernel({
  store: new SqliteStore(join(dir, 'hubos.db')),
  config: { agents: { bench: { model, tools: ['lookup'] } } },
  plugins: [
    {
      name: 'bench-tools',
      apply(k) {
        k.hooks.registerTools.tap('bench-tools', (registry) =>
          registry.register({
            name: 'lookup',
            description: 'Looks a key up.',
            inputSchema: { type: 'object', properties: { key: { type: 'string' } } },
            handler: (_ctx, { input }) => `value of ${(input as { key: string }).key}`,
          }),
        );
      },
    },
  ],
});

try {
  const cases = Array.from({ length: CASES }, (_, i) => ({
    id: `case-${i + 1}`,
    input: `key-${i + 1}`,
    expected: { contains: `value of key-${i + 1}`, tools: { calls: ['lookup'] }, maxSteps: 2 },
  }));
  const started = performance.now();
  const { summary } = await evaluate({
    kernel,
    agent: 'bench',
    dataset: { name: 'bench', cases },
    concurrency: CONCURRENCY,
  });
  const ms = performance.now() - started;
  const ideal = (CASES * 2 * MODEL_DELAY_MS) / CONCURRENCY;
  if (!summary.passed || summary.scorers.contains?.mean !== 1 || summary.failed !== 0)
    throw new Error(`the bench's cases did not all pass: ${JSON.stringify(summary)}`);
  console.log(
    `eval: ${CASES.toLocaleString('en')} cases at concurrency ${CONCURRENCY}, 2 model calls of ${MODEL_DELAY_MS} ms each: ${(ms / 1000).toFixed(2)} s; ${(ms / ideal).toFixed(2)}x the ideal ${(ideal / 1000).toFixed(1)} s (target ≤ 1.5x)`,
  );
} finally {
  await kernel.close();
  rmSync(dir, { recursive: true, force: true });
}
