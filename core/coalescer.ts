/**
 * Runs async work once per burst of triggers: `schedule()` calls made in the same turn of the event
 * loop share one run, and triggers arriving while it runs cause exactly one more run after it.
 */
export class Coalescer {
  readonly #work: () => Promise<void>;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Immediate | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(work: () => Promise<void>, onError: (error: unknown) => void) {
    this.#work = work;
    this.#onError = onError;
  }

  schedule(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#timer ??= setImmediate(() => {
      this.#timer = undefined;
      this.#run();
    });
  }

  /** No more runs; one in progress finishes. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearImmediate(this.#timer);
    this.#timer = undefined;
  }

  /** Resolves once nothing is scheduled or running. */
  async idle(): Promise<void> {
    while (this.#timer || this.#running) {
      await (this.#running ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  #run(): void {
    this.#running = Promise.resolve()
      .then(this.#work)
      .catch(this.#onError)
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.schedule();
        }
      });
  }
}
