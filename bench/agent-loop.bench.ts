/**
 * Agent loop overhead per step: a run where an instant model asks for one no-op tool call per
 * step, N steps, then answers. Baseline: calling the no-op handler directly N times. What is left
 * once the handler's own cost is taken off is the loop's price per step (hooks, events, spans,
 * input validation, messages).
 */
import type { LanguageModel, ModelChunk, ModelRequest, Tool } from '../core/index.ts';
import { bootKernel } from '../testing/index.ts';
import { opsPerSecond, report } from './measure.ts';

const STEPS = 20;

/** Answers at once: a call to `noop` until the conversation holds STEPS tool results, then text. */
class InstantModel implements LanguageModel {
  readonly provider = 'bench';
  readonly modelId = 'instant';

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
    const step = (request.messages.length - 1) / 2;
    if (step < STEPS) {
      const id = `call_${step}`;
      yield { type: 'tool-call', id, name: 'noop', input: { n: step } };
      yield { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 1 } };
    } else {
      yield { type: 'text-delta', delta: 'done' };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
    }
  }
}

const handler = (_ctx: { signal: AbortSignal }, tc: { input: { n: number } }) => tc.input.n;
const noop: Tool = {
  name: 'noop',
  description: 'Does nothing.',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  handler,
};

const kernel = await bootKernel({
  config: { agents: { bench: { model: new InstantModel(), tools: ['noop'], maxSteps: 1000 } } },
  plugins: [
    {
      name: 'bench-tools',
      apply(k) {
        k.hooks.registerTools.tap('bench-tools', (registry) => registry.register(noop));
      },
    },
  ],
});
const agent = kernel.agent('bench');
const check = await agent.run('go');
if (check.steps !== STEPS + 1 || check.toolCalls.length !== STEPS || check.text !== 'done') {
  throw new Error(`agent-loop bench: unexpected run ${JSON.stringify(check).slice(0, 300)}`);
}

const signal = new AbortController().signal;
const direct = async () => {
  for (let n = 0; n < STEPS; n++) await handler({ signal }, { input: { n } });
};

/** Seconds per run over `count` runs, each in a new session (so each run also stores its messages). */
async function secondsPerSessionRun(count: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < count; i++) await agent.run('go', { sessionId: `s${sessions++}` });
  return (performance.now() - start) / 1000 / count;
}
let sessions = 0;

const runOps = await opsPerSecond(() => agent.run('go'), 1_000);
const directOps = await opsPerSecond(direct, 500);
// Sessions live in one store namespace per agent: measured on a fresh store, then once it holds 2,000.
await secondsPerSessionRun(100);
const freshStore = await secondsPerSessionRun(200);
await secondsPerSessionRun(2_000 - sessions);
const fullStore = await secondsPerSessionRun(200);
await kernel.close();

const micros = (secondsPerRun: number) => (((secondsPerRun - 1 / directOps) / STEPS) * 1e6).toFixed(1);
report(`agent run, ${STEPS} tool steps + answer`, runOps, directOps, `calling the handler ${STEPS} times`);
console.log(`  loop overhead: ${micros(1 / runOps)} µs/step (target < 50)`);
console.log(
  `  with a session (MemoryStore): ${micros(freshStore)} µs/step on a fresh store, ${micros(fullStore)} µs/step once it holds 2,000 sessions`,
);
