import type { AgentEvent } from '../agent/events.ts';
import type { Bus } from '../bus/bus.ts';
import { logId, positionOf } from '../bus/log-id.ts';
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
/**
 * How often a follower that hears nothing looks at the record. On a shared bus every end reaches
 * the log (the instance running the run appends it, as does the one that marks a dead instance's
 * run interrupted): the look is only a safety net for an end that never reached it. On a bus of one
 * instance, runs of other processes sharing the store are only heard of through the record.
 */
const SAFETY_MS = 10_000;
const UNSHARED_CHECK_MS = 1_000;
/**
 * How long an ended run's events stay on the bus, by default: long enough for a client whose stream
 * broke (a network change, a laptop waking up) to resume with Last-Event-ID and get the rest; after
 * that its followers get the end from the record. Each log keeps at most its last 10,000 entries.
 */
export const DEFAULT_EVENTS_TTL_MS = 300_000;
/** How long an ended run's log is given to bring its end, once the record says it ended. */
const ENDED_CHECK_MS = 250;

/**
 * A run's events on the bus: appended by the instance running it, followed from any instance. Each
 * event is stored at its seq (the log id `<seq>-0`), its end right after the last event, so a
 * follower starts reading at its cursor, not at the start, and a resumed run knows its last seq.
 */
export class RunEvents {
  readonly #bus: Bus;
  readonly #ttlMs: number;
  readonly #onError: ((message: string) => void) | undefined;

  constructor(bus: Bus, ttlMs = DEFAULT_EVENTS_TTL_MS, onError?: (message: string) => void) {
    this.#bus = bus;
    this.#ttlMs = ttlMs;
    this.#onError = onError;
  }

  append(runId: string, entry: { seq: number; event: StoreValue }): void {
    // Not awaited: the run does not wait for its watchers; the bus keeps the order.
    this.#bus
      .append(logName(runId), entry, { at: entry.seq })
      .catch((error: unknown) => this.#report(runId, error));
  }

  // The end and the log's time to live in one call (one Redis command).
  end(runId: string, record: RunRecord): void {
    const log = logName(runId);
    this.#bus
      .append(log, { end: record as unknown as StoreValue }, { ttlMs: this.#ttlMs })
      .catch((error: unknown) => this.#report(runId, error));
  }

  /** The seq of the last event in the run's log (0 if none is kept): where a resumed run goes on. */
  async lastSeq(runId: string): Promise<number> {
    const last = await this.#bus.last(logName(runId));
    if (!last) return 0;
    const entry = last.entry as { seq?: unknown } | null;
    // An end is stored right after the last event, at that event's seq.
    return typeof entry?.seq === 'number' ? entry.seq : positionOf(last.id);
  }

  async *follow(follow: RunFollow): AsyncIterable<RunLogEntry> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    follow.signal?.addEventListener('abort', onAbort, { once: true });
    if (follow.signal?.aborted) return;
    const log = logName(follow.id);
    const start = await follow.current();
    // A run already ended when asked for: its log, if kept, answers at once; else its end comes soon.
    const endedAtStart = !start || isFinal(start.status);
    if (endedAtStart && !(await this.#bus.last(log))) {
      // Its log is gone (or never was): the record says how it ended, at once.
      follow.signal?.removeEventListener('abort', onAbort);
      if (start) yield { end: start };
      return;
    }
    const afterSeq = Math.floor(follow.afterSeq);
    const after = afterSeq > 0 && Number.isSafeInteger(afterSeq) ? logId(afterSeq) : undefined;
    const entries = this.#bus.follow(log, after, stop.signal)[Symbol.asyncIterator]();
    let next = entries.next();
    const checkMs = this.#bus.shared ? SAFETY_MS : UNSHARED_CHECK_MS;
    // The record said it ended: its log is given a moment to bring the end before the record does.
    let endedSeen = endedAtStart;
    try {
      while (!stop.signal.aborted) {
        let timer: NodeJS.Timeout | undefined;
        const tick = new Promise<'tick'>((resolve) => {
          timer = setTimeout(() => resolve('tick'), endedSeen ? ENDED_CHECK_MS : jitter(checkMs));
        });
        const got = await Promise.race([next, tick]);
        clearTimeout(timer);
        if (got === 'tick') {
          // Nothing heard: an ended run whose log is gone (or never reached the bus) ends here.
          // A store that is away says nothing about the run: its log may still bring the end.
          const record = await follow.current().catch(() => 'unknown' as const);
          if (record === 'unknown') continue;
          if (!record) return;
          if (isFinal(record.status)) {
            if (endedSeen) {
              yield { end: record };
              return;
            }
            endedSeen = true;
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
        // Read from the cursor already; a log written before seqs were its ids is filtered here.
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

/** Between three quarters and the whole of `ms`: the looks of many followers do not come together. */
function jitter(ms: number): number {
  return Math.round(ms * (0.75 + Math.random() / 4));
}
