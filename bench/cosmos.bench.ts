/**
 * Cosmos at scale: create then delete 10,000 agents with maxAgents 10,000. Prints agents created
 * per second and heap bytes per idle agent (heap after creating minus heap before, after GC), with
 * a baseline in the same run: the same number of bare `kernel.createAgent` calls.
 * Targets: 10,000 created in under one second; under 20 KB per idle agent.
 * Run with `node --expose-gc bench/cosmos.bench.ts` for exact heap numbers (npm run bench passes it).
 */
import type { LanguageModel, ModelChunk } from '../core/index.ts';
import cosmos from '../plugins/cosmos/index.ts';
import { bootKernel } from '../testing/index.ts';
import { noopToolPlugin } from './noop-tool.ts';

const N = 10_000;
const model: LanguageModel = {
  provider: 'bench',
  modelId: 'idle',
  async *stream(): AsyncGenerator<ModelChunk> {
    yield { type: 'finish', finishReason: 'stop' };
  },
};
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

const kernel = await bootKernel({
  plugins: [noopToolPlugin, cosmos({ maxAgents: N })],
  config: { agents: { worker: { description: 'A worker', instructions: 'Work.', model, tools: ['noop'] } } },
});
const space = kernel.service('cosmos');

// Baseline: the kernel alone, no Cosmos bookkeeping.
let started = performance.now();
for (let i = 0; i < N; i++) await kernel.createAgent({ name: `bare-${i}`, model, tools: ['noop'] });
const bareSeconds = (performance.now() - started) / 1000;
for (let i = 0; i < N; i++) await kernel.destroyAgent(`bare-${i}`);

const before = heap();
started = performance.now();
for (let i = 0; i < N; i++) await space.create({ agentId: `agent-${i}`, templateId: 'worker' });
const seconds = (performance.now() - started) / 1000;
const perAgent = (heap() - before) / N;
started = performance.now();
for (let i = 0; i < N; i++) await space.delete(`agent-${i}`);
const deleteSeconds = (performance.now() - started) / 1000;

console.log(
  `cosmos: ${N} agents created in ${seconds.toFixed(2)} s (${Math.round(N / seconds)}/s, target < 1 s); ` +
    `${(perAgent / 1024).toFixed(1)} KB heap per idle agent (target < 20 KB); ` +
    `deleted in ${deleteSeconds.toFixed(2)} s; ${(seconds / bareSeconds).toFixed(2)}x the time of bare kernel.createAgent`,
);
await kernel.close();
