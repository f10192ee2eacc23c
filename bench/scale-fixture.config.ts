import { defineConfig, type LanguageModel, type ModelChunk } from '../core/index.ts';
import { noopToolPlugin } from './noop-tool.ts';

// What the scale-out benchmarks (bench/scale-out.bench.ts, bench/queue-latency.bench.ts) serve with
// `hubos serve --config`, one process per instance. The environment picks the store and the bus:
//   HUBOS_SCALE_DATABASE_URL + HUBOS_SCALE_SCHEMA   PostgreSQL (else SQLite at HUBOS_SCALE_SQLITE)
//   HUBOS_SCALE_REDIS_URL + HUBOS_SCALE_PREFIX      Redis (else the local bus)
//   HUBOS_SCALE_WORKSPACE                           the workspace folder (a temporary one)
// Its one agent, `bench`, is server.bench.ts's: one instant `noop` tool call, then an answer.

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`the scale-out fixture needs ${name}`);
  return value;
};

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

const databaseUrl = process.env.HUBOS_SCALE_DATABASE_URL;
const redisUrl = process.env.HUBOS_SCALE_REDIS_URL;

export default defineConfig({
  plugins: [noopToolPlugin],
  store: databaseUrl
    ? { driver: 'postgres', url: databaseUrl, schema: env('HUBOS_SCALE_SCHEMA') }
    : { driver: 'sqlite', path: env('HUBOS_SCALE_SQLITE') },
  bus: redisUrl
    ? { driver: 'redis', url: redisUrl, prefix: env('HUBOS_SCALE_PREFIX'), leaseMs: 5_000 }
    : { driver: 'local' },
  workspace: env('HUBOS_SCALE_WORKSPACE'),
  server: { rateLimit: false, shutdownTimeoutMs: 2_000 },
  agents: { bench: { model: instant, tools: ['noop'] } },
});
