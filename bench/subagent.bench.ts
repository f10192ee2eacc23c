/**
 * Sub-agents in parallel: one model turn with N = 8 `task` calls, each sub-agent's model taking
 * 200 ms to answer, against the same run with one task. The ratio of wall times is what running
 * the tasks concurrently costs over one alone (target < 1.3; one after another would be about 8).
 */
import type { LanguageModel, ModelChunk, ModelRequest } from '../core/index.ts';
import subagent from '../plugins/subagent/index.ts';
import { bootKernel } from '../testing/index.ts';

const N = 8;
const MODEL_MS = 200;
const ROUNDS = 5;

/** The lead: `go <n>` makes it call `task` n times in one turn; once the results are back it answers. */
class LeadModel implements LanguageModel {
  readonly provider = 'bench';
  readonly modelId = 'lead';

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
    const last = request.messages.at(-1)!;
    if (last.role === 'user') {
      const n = Number(last.content.split(' ')[1]);
      for (let i = 0; i < n; i++) {
        const input = { description: `job ${i}`, subagent_type: 'worker' };
        yield { type: 'tool-call', id: `call_${i}`, name: 'task', input };
      }
      yield { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 1 } };
    } else {
      yield { type: 'text-delta', delta: 'all done' };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
    }
  }
}

/** Each sub-agent's model: answers after MODEL_MS, as a remote model would. */
class SlowModel implements LanguageModel {
  readonly provider = 'bench';
  readonly modelId = 'slow';

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
    await new Promise((resolve) => setTimeout(resolve, MODEL_MS));
    request.signal.throwIfAborted();
    yield { type: 'text-delta', delta: `done: ${request.messages[0]!.content}` };
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
  }
}

const kernel = await bootKernel({
  plugins: [subagent()],
  config: {
    subagents: { worker: { description: 'Does one job.', model: new SlowModel() } },
    agents: { lead: { model: new LeadModel(), tools: ['task'] } },
  },
});
const lead = kernel.agent('lead');

async function wallMs(tasks: number): Promise<number> {
  const start = performance.now();
  const result = await lead.run(`go ${tasks}`);
  const elapsed = performance.now() - start;
  if (result.toolCalls.length !== tasks || !result.toolCalls.every((call) => call.ok)) {
    throw new Error(`subagent bench: unexpected run ${JSON.stringify(result.toolCalls).slice(0, 300)}`);
  }
  return elapsed;
}

// Warm up, then alternate the two and compare medians: the machine's noise hits both alike.
await wallMs(1);
await wallMs(N);
const one: number[] = [];
const many: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  one.push(await wallMs(1));
  many.push(await wallMs(N));
}
await kernel.close();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const [oneMs, manyMs] = [median(one), median(many)];
console.log(
  `sub-agents: ${N} parallel tasks (model ${MODEL_MS} ms each) ${manyMs.toFixed(1)} ms; one task ${oneMs.toFixed(1)} ms; ` +
    `ratio ${(manyMs / oneMs).toFixed(2)}x (target < 1.3; ${N} in sequence would be ~${N}x), medians of ${ROUNDS} rounds`,
);
