import type { AgentEvent } from '../agent/events.ts';
import type { Bus } from '../bus/bus.ts';
import { errorMessage } from '../errors.ts';
import type { StoreValue } from '../store/store.ts';
import { isFinal, type RunRecord } from './run-record.ts';

/** One entry of a run's event log: an agent event with its number in the run, or the run's end. */
export type RunLogEntry = { seq: number; event: AgentEvent } | { end: RunRecord };

export interface RunFollow {
  id: string;
  /** Events numbered up to this one are skipped (a client resuming with Last-Event-ID). */
  afterSeq: number;
  signal?: AbortSignal | undefined;
  /** The run's record as it stands: a follower of a run that ended while nobody logged it still ends. */
  current: () => Promise<RunRecord | undefined>;
}

const logName = (runId: string) => `run:${runId}:events`;
/** How often a follower that hears nothing looks at the record, and how long it gives an ended run's log. */
const CHECK_MS = 1_000;
const ENDED_CHECK_MS = 250;

/** A run's events on the bus: appended by the instance running it, followed from any instance. */
export class RunEvents {
  readonly #bus: Bus;
  readonly #ttlMs: number;
  readonly #onError: ((message: string) => void) | undefined;

  constructor(bus: Bus, ttlMs: number, onError?: (message: string) => void) {
    this.#bus = bus;
    this.#ttlMs = ttlMs;
    this.#onError = onError;
  }

  append(runId: string, entry: { seq: number; event: StoreValue }): void {
    // Not awaited: the run does not wait for its watchers; the bus keeps the order.
    this.#bus.append(logName(runId), entry).catch((error: unknown) => this.#report(runId, error));
  }

  end(runId: string, record: RunRecord): void {
    const log = logName(runId);
    this.#bus
      .append(log, { end: record as unknown as StoreValue })
      .then(() => this.#bus.expire(log, this.#ttlMs))
      .catch((error: unknown) => this.#report(runId, error));
  }

  /** The number of the last event kept in a run's log (0: none): a resumed run numbers on from it. */
  async lastSeq(runId: string): Promise<number> {
    const entry = (await this.#bus.last(logName(runId)))?.entry as { seq?: number } | undefined;
    return typeof entry?.seq === 'number' ? entry.seq : 0;
  }

  async *follow(follow: RunFollow): AsyncIterable<RunLogEntry> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    follow.signal?.addEventListener('abort', onAbort, { once: true });
    if (follow.signal?.aborted) return;
    const entries = this.#bus.follow(logName(follow.id), undefined, stop.signal)[Symbol.asyncIterator]();
    let next = entries.next();
    let endedChecks = 0;
    // A run already ended when asked for: its log, if kept, answers at once; else its end comes soon.
    const endedAtStart = isFinal((await follow.current())?.status ?? 'completed');
    try {
      while (!stop.signal.aborted) {
        let timer: NodeJS.Timeout | undefined;
        const tick = new Promise<'tick'>((resolve) => {
          timer = setTimeout(() => resolve('tick'), endedAtStart ? ENDED_CHECK_MS : CHECK_MS);
        });
        const got = await Promise.race([next, tick]);
        clearTimeout(timer);
        if (got === 'tick') {
          // Nothing heard: an ended run whose log is gone (or never reached the bus) ends here.
          // A store that is away says nothing about the run: its log may still bring the end.
          const record = await follow.current().catch(() => 'unknown' as const);
          if (record === 'unknown') continue;
          if (!record) return;
          if (isFinal(record.status) && ++endedChecks >= (endedAtStart ? 1 : 2)) {
            yield { end: record };
            return;
          }
          continue;
        }
        if (got.done) return;
        next = entries.next();
        const entry = got.value.entry as unknown as RunLogEntry;
        if ('end' in entry) {
          yield entry;
          return;
        }
        if (entry.seq > follow.afterSeq) yield entry;
      }
    } finally {
      follow.signal?.removeEventListener('abort', onAbort);
      stop.abort();
      await entries.return?.();
    }
  }

  #report(runId: string, error: unknown): void {
    this.#onError?.(`run ${runId}: its events did not reach the bus: ${errorMessage(error)}`);
  }
}
