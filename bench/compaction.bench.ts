/**
 * Compaction's price when it is on but not needed: a turn of a 400-message session (an instant
 * model, the memory store) with `context.compaction` on and a window it never nears, against the
 * same turn with compaction off. The target: at most 5% more CPU per turn (process CPU time,
 * batches of each alternated so both see the same machine). The check that decides is the
 * estimate over the messages already in memory: no store read, no tokenizer.
 */
import type { HubosConfig, LanguageModel, Message, ModelChunk } from '../core/index.ts';
import { bootKernel } from '../testing/index.ts';

/** Answers at once, whatever it is asked. */
class InstantModel implements LanguageModel {
  readonly provider = 'bench';
  readonly modelId = 'instant';

  async *stream(): AsyncGenerator<ModelChunk> {
    yield { type: 'text-delta', delta: 'noted' };
    yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
  }
}

const HISTORY = 400;
const words = (n: number) => Array.from({ length: 40 }, (_, i) => `word${(i * 7 + n) % 97}`).join(' ');
const history: Message[] = Array.from({ length: HISTORY }, (_, n) =>
  n % 2 === 0 ? { role: 'user', content: words(n) } : { role: 'assistant', content: words(n) },
);

async function agentWith(context: HubosConfig['context']) {
  const kernel = await bootKernel({ config: { context, agents: { bench: { model: new InstantModel() } } } });
  await kernel.sessions.append('bench', 'long', history);
  return { kernel, agent: kernel.agent('bench') };
}

const off = await agentWith({ compaction: false });
// A window of ten million tokens: never neared, so compaction only checks.
const on = await agentWith({ compaction: { contextWindow: 10_000_000 } });

/** CPU µs per turn over `turns` turns of `agent`'s long session. */
async function cpuPerTurn(agent: typeof on.agent, turns: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < turns; i++) await agent.run(`turn ${i}`, { sessionId: 'long' });
  const used = process.cpuUsage(start);
  return (used.user + used.system) / turns;
}

const check = await on.agent.run('check', { sessionId: 'long' });
if (check.text !== 'noted')
  throw new Error(`compaction bench: unexpected run ${JSON.stringify(check).slice(0, 200)}`);
await cpuPerTurn(off.agent, 50);
await cpuPerTurn(on.agent, 50);
const offTimes: number[] = [];
const onTimes: number[] = [];
for (let round = 0; round < 6; round++) {
  offTimes.push(await cpuPerTurn(off.agent, 40));
  onTimes.push(await cpuPerTurn(on.agent, 40));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ratio = median(onTimes) / median(offTimes);
console.log(
  `compaction on, not triggered (${HISTORY}-message session): ${Math.round(median(onTimes))} µs CPU per turn; ${ratio.toFixed(3)}x off (${Math.round(median(offTimes))} µs); target ≤ 1.05x ${ratio <= 1.05 ? 'met' : 'MISSED'}`,
);
await Promise.all([off.kernel.close(), on.kernel.close()]);
