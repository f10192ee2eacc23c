import { HubosError } from '../errors.ts';

/**
 * A push-to-pull bridge: the loop (and concurrent tool calls) push events, `stream()` pulls
 * them in order. Closing ends the iteration; nothing is buffered beyond what was pushed.
 */
class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiting: ((result: IteratorResult<T>) => void) | undefined;
  #closed = false;

  push(item: T): void {
    if (this.#closed) return;
    if (this.#waiting) {
      const resolve = this.#waiting;
      this.#waiting = undefined;
      resolve({ value: item, done: false });
    } else {
      this.#items.push(item);
    }
  }

  close(): void {
    this.#closed = true;
    this.#waiting?.({ value: undefined, done: true });
    this.#waiting = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiting = resolve;
        });
      },
    };
  }
}

/**
 * Runs `work` with a signal of its own and yields what it pushes, as it happens: the `stream()`
 * of agents, teams and workflows. Aborting `signal` aborts the work; a consumer that stops early
 * cancels it (RUN_CANCELLED). A failure of the work is thrown once its events are out.
 */
export async function* streamEvents<T>(
  signal: AbortSignal | undefined,
  work: (signal: AbortSignal, push: (item: T) => void) => Promise<unknown>,
): AsyncGenerator<T, void, undefined> {
  const queue = new EventQueue<T>();
  // Aborted by the caller's signal, or here when the consumer stops early.
  const controller = new AbortController();
  // Forwarded by hand, not AbortSignal.any, which costs the run routes measurably (see Agent.run).
  const abort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', abort, { once: true });
  if (signal?.aborted) abort();
  let finished = false;
  const done = work(controller.signal, (item) => queue.push(item)).finally(() => {
    finished = true;
    queue.close();
  });
  try {
    yield* queue;
    await done;
  } finally {
    signal?.removeEventListener('abort', abort);
    // Only a consumer that stopped early still has work to cancel.
    if (!finished) controller.abort(new HubosError('RUN_CANCELLED', 'the stream was closed'));
    await done.catch(() => undefined);
  }
}
