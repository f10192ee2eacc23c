import { type Answer, type Json, postJson, postStream } from './http.ts';
import type { ServeProcess } from './instances.ts';
import { pollUntil } from './poll.ts';
import { SSEReader } from './sse.ts';

/** How a load request starts its run. */
export type LoadMode = 'async-quick' | 'async-waiter' | 'sync-quick' | 'sync-slow' | 'sse-slow';

export const LOAD_MODES: LoadMode[] = ['async-quick', 'async-waiter', 'sync-quick', 'sync-slow', 'sse-slow'];

/** What one request of the load got. */
export interface Outcome {
  mode: LoadMode;
  instance: string;
  startedAt: number;
  ms: number;
  /** The run it names, when its answer named one (an acknowledged run, or a failed one with its result). */
  runId?: string;
  /**
   * `acked`: 200/202 with a run id. `failed`: a clean failure, 5xx with `{ error: { code, message } }`.
   * `unclean`: anything else (no answer within the timeout, a dropped connection, a body that is not
   * the JSON error, a 4xx).
   */
  kind: 'acked' | 'failed' | 'unclean';
  status?: number;
  code?: string;
  detail?: string;
}

const TIMEOUT_MS = 30_000;

/**
 * Posts runs to the given instances, `concurrency` requests at a time round-robin over the modes
 * and instances, until `stop()`; keeps every outcome.
 */
export class Load {
  readonly outcomes: Outcome[] = [];
  readonly #targets: () => ServeProcess[];
  readonly #concurrency: number;
  readonly #modes: LoadMode[];
  #running = false;
  #loops: Promise<void>[] = [];
  #next = 0;

  constructor(targets: () => ServeProcess[], options: { concurrency?: number; modes?: LoadMode[] } = {}) {
    this.#targets = targets;
    this.#concurrency = options.concurrency ?? 6;
    this.#modes = options.modes ?? LOAD_MODES;
  }

  start(): void {
    this.#running = true;
    this.#loops = Array.from({ length: this.#concurrency }, () => this.#loop());
  }

  /** Stops sending and waits for the requests under way. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }

  get acked(): Outcome[] {
    return this.outcomes.filter((outcome) => outcome.kind === 'acked');
  }

  /** Waits until `count` more runs are acknowledged than now (the load still going). */
  async waitForMoreAcked(count: number, timeoutMs = 60_000): Promise<void> {
    const target = this.acked.length + count;
    await pollUntil(
      `${count} more acknowledged runs`,
      () => this.acked.length,
      (n) => n >= target,
      {
        timeoutMs,
        intervalMs: 50,
      },
    );
  }

  /** Runs ids named by any answer (acknowledged, or failed with a result). */
  get runIds(): string[] {
    return [...new Set(this.outcomes.flatMap((outcome) => (outcome.runId ? [outcome.runId] : [])))];
  }

  summary(): string {
    const count = (kind: Outcome['kind']) => this.outcomes.filter((outcome) => outcome.kind === kind).length;
    const slowest = Math.max(0, ...this.outcomes.map((outcome) => outcome.ms));
    return `${this.outcomes.length} requests: ${count('acked')} acknowledged, ${count('failed')} failed cleanly, ${count('unclean')} unclean; slowest ${slowest} ms`;
  }

  async #loop(): Promise<void> {
    while (this.#running) {
      const i = this.#next++;
      const targets = this.#targets();
      const target = targets[i % targets.length]!;
      const mode = this.#modes[Math.floor(i / targets.length) % this.#modes.length]!;
      this.outcomes.push(await send(target, mode, i));
    }
  }
}

async function send(target: ServeProcess, mode: LoadMode, i: number): Promise<Outcome> {
  const startedAt = Date.now();
  const base = { mode, instance: target.name, startedAt };
  const done = (rest: Omit<Outcome, keyof typeof base | 'ms'>): Outcome => ({
    ...base,
    ms: Date.now() - startedAt,
    ...rest,
  });
  try {
    if (mode === 'sse-slow') return done(await sendStream(target, i));
    const [agent, input, async] = {
      'async-quick': ['quick', `load ${i}`, true],
      'async-waiter': ['waiter', 'pause 300', true],
      'sync-quick': ['quick', `load ${i}`, false],
      'sync-slow': ['slow', 'words=5 delay=40', false],
    }[mode] as [string, string, boolean];
    const answer = await postJson(
      `${target.url}/api/agents/${agent}/run${async ? '?async=true' : ''}`,
      {
        input,
      },
      { timeoutMs: TIMEOUT_MS },
    );
    return done(classify(answer, async ? 202 : 200));
  } catch (error) {
    return done({ kind: 'unclean', detail: describeError(error) });
  }
}

/** A run started with SSE: acknowledged once its run-start names it, and read to its end. */
async function sendStream(
  target: ServeProcess,
  i: number,
): Promise<Omit<Outcome, 'mode' | 'instance' | 'startedAt' | 'ms'>> {
  const response = await postStream(
    `${target.url}/api/agents/slow/run`,
    { input: `words=4 delay=40 sse ${i}` },
    AbortSignal.timeout(TIMEOUT_MS),
  );
  if (response.status !== 200) {
    const text = await response.text();
    return classify(
      {
        status: response.status,
        text,
        body: safeParse(text),
        contentType: response.headers.get('content-type') ?? '',
      },
      200,
    );
  }
  const stream = new SSEReader(response);
  const frames = await stream.rest();
  const runId = frames.find((frame) => frame.event === 'run-start')?.data.runId as string | undefined;
  const end = frames.find((frame) => frame.event === 'run-finish' || frame.event === 'run-error');
  if (!runId) return { kind: 'unclean', status: 200, detail: 'an event stream without run-start' };
  if (!end)
    return { kind: 'unclean', status: 200, runId, detail: 'an event stream cut before the run ended' };
  return { kind: 'acked', status: 200, runId };
}

function classify(answer: Answer, ok: number): Omit<Outcome, 'mode' | 'instance' | 'startedAt' | 'ms'> {
  const body = answer.body as Json;
  const runId: string | undefined = body?.runId ?? body?.result?.runId;
  if (answer.status === ok && typeof runId === 'string')
    return { kind: 'acked', status: answer.status, runId };
  const code = body?.error?.code;
  if (answer.status >= 500 && typeof code === 'string' && typeof body.error.message === 'string')
    return { kind: 'failed', status: answer.status, code, ...(runId ? { runId } : {}) };
  return {
    kind: 'unclean',
    status: answer.status,
    detail: answer.text.slice(0, 500),
    ...(runId ? { runId } : {}),
  };
}

function safeParse(text: string): Json {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return `${(error as Error)?.name}: ${(error as Error)?.message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
}
