import type { RunLogEntry } from '../../../core/index.ts';

/**
 * A local run's events as its listener hears them, read in order by one reader. `close` drops
 * what is left and what comes after: a turn that stops at `input-required` hears no more.
 */
export class RunFeed implements AsyncIterable<RunLogEntry> {
  #queue: RunLogEntry[] = [];
  #wake: (() => void) | undefined;
  #closed = false;

  push(entry: RunLogEntry): void {
    if (this.#closed) return;
    this.#queue.push(entry);
    this.#wakeReader();
  }

  close(): void {
    this.#closed = true;
    this.#queue = [];
    this.#wakeReader();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RunLogEntry> {
    for (;;) {
      const entry = this.#queue.shift();
      if (entry) {
        yield entry;
        if ('end' in entry) return;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
