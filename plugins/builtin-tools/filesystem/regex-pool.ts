import type { Worker } from 'node:worker_threads';
import { type RegexAnswer, type RegexRequest, startRegexWorker } from './regex-worker.ts';

/** One text to test: `file` names it in the timeout error. */
export interface RegexJob {
  source: string;
  flags: string;
  text: string;
  max: number;
  file: string;
}

export interface RegexPoolOptions {
  /** Most worker threads alive at once. */
  size: number;
  /** How long one job may run before its worker is terminated and the job fails. */
  timeoutMs: number;
  /** How long a worker waits for work before it ends (default 10 s). */
  idleMs?: number;
}

/** A job in the queue or on a worker, until it settles. */
interface Task {
  job: RegexJob;
  resolve(hits: number[]): void;
  reject(error: Error): void;
  /** Removes the abort listener; called once, when the task settles. */
  detach(): void;
  id?: number;
  slot?: Slot;
  timer?: NodeJS.Timeout;
  settled?: boolean;
}

/** A live worker thread: idle, running one task, or ending (terminated, its exit not seen yet). */
interface Slot {
  worker: Worker;
  task?: Task;
  idleTimer?: NodeJS.Timeout;
  ending?: boolean;
  /** Its code has started: a job's time limit runs from then, not from the thread's (slow) start. */
  online?: boolean;
}

const IDLE_MS = 10_000;

/**
 * Runs regular expressions in a bounded set of worker threads: a pattern comes from the model and
 * may backtrack catastrophically (`(a+)+$` on a long line), so it runs off the event loop, and past
 * `timeoutMs` its worker is terminated. At most `size` workers live at once (a thread costs
 * megabytes and tens of milliseconds to start); more jobs wait in a FIFO queue. A job cancelled
 * while queued leaves the queue; one cancelled while running ends its worker (it may be stuck),
 * and the slot is free once that thread has exited. Idle workers are reused, ended after `idleMs`,
 * and never keep the process alive.
 */
export class RegexPool {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #idleMs: number;
  readonly #slots = new Set<Slot>();
  readonly #queue: Task[] = [];
  #ids = 0;
  #peak = 0;
  #started = 0;

  constructor({ size, timeoutMs, idleMs = IDLE_MS }: RegexPoolOptions) {
    this.#size = size;
    this.#timeoutMs = timeoutMs;
    this.#idleMs = idleMs;
  }

  /** For tests and benches: threads alive now (ending ones included), the most at once, started in all, jobs waiting. */
  get stats(): { workers: number; peakWorkers: number; startedWorkers: number; queued: number } {
    return {
      workers: this.#slots.size,
      peakWorkers: this.#peak,
      startedWorkers: this.#started,
      queued: this.#queue.length,
    };
  }

  /** The 0-based numbers of the lines of `job.text` that match, at most `job.max`. */
  match(job: RegexJob, signal?: AbortSignal): Promise<number[]> {
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise<number[]>((resolve, reject) => {
      const task: Task = { job, resolve, reject, detach: () => undefined };
      if (signal) {
        const onAbort = () => this.#cancel(task);
        signal.addEventListener('abort', onAbort, { once: true });
        task.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.#queue.push(task);
      this.#dispatch();
    });
  }

  /** Hands queued tasks to idle workers, starting workers while fewer than `size` live. */
  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#idleSlot();
      if (!slot && this.#slots.size < this.#size) {
        try {
          slot = this.#spawn();
        } catch (error) {
          const why = `cannot start a worker thread for the regular expression: ${(error as Error).message}`;
          this.#settle(this.#queue.shift()!, new Error(why));
          continue;
        }
      }
      if (!slot) return;
      this.#run(slot, this.#queue.shift()!);
    }
  }

  #idleSlot(): Slot | undefined {
    for (const slot of this.#slots) if (!slot.task && !slot.ending) return slot;
    return undefined;
  }

  #spawn(): Slot {
    const slot: Slot = { worker: startRegexWorker() };
    slot.worker
      .on('message', (answer: RegexAnswer) => this.#answered(slot, answer))
      .on('error', (error: Error) => this.#crashed(slot, error))
      .on('exit', () => this.#exited(slot))
      .once('online', () => {
        slot.online = true;
        if (slot.task) this.#startClock(slot, slot.task);
      });
    this.#slots.add(slot);
    this.#started++;
    this.#peak = Math.max(this.#peak, this.#slots.size);
    return slot;
  }

  #run(slot: Slot, task: Task): void {
    clearTimeout(slot.idleTimer);
    slot.task = task;
    task.slot = slot;
    task.id = ++this.#ids;
    if (slot.online) this.#startClock(slot, task);
    // A busy worker keeps the process alive until its answer; an idle one does not (see #release).
    slot.worker.ref();
    const { source, flags, text, max } = task.job;
    slot.worker.postMessage({ id: task.id, source, flags, text, max } satisfies RegexRequest);
  }

  /** Past the time limit the expression is taken to be stuck: its worker is terminated. */
  #startClock(slot: Slot, task: Task): void {
    task.timer = setTimeout(() => {
      this.#settle(task, timedOut(this.#timeoutMs, task.job.file));
      this.#end(slot);
    }, this.#timeoutMs);
  }

  #answered(slot: Slot, answer: RegexAnswer): void {
    const task = slot.task;
    if (!task || task.id !== answer.id) return;
    this.#settle(
      task,
      'hits' in answer ? answer.hits : new Error(`the regular expression search failed: ${answer.error}`),
    );
    this.#release(slot);
  }

  /** The worker is free again: give it the next task, or let it idle and end after a while. */
  #release(slot: Slot): void {
    slot.task = undefined;
    this.#dispatch();
    if (slot.task || slot.ending) return;
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => this.#end(slot), this.#idleMs);
    slot.idleTimer.unref();
  }

  /** Cancelled while queued: leave the queue. While running: end the worker, which may be stuck. */
  #cancel(task: Task): void {
    const queued = this.#queue.indexOf(task);
    if (queued !== -1) this.#queue.splice(queued, 1);
    const slot = task.slot;
    this.#settle(task, cancelled());
    if (slot?.task === task) this.#end(slot);
  }

  #crashed(slot: Slot, error: Error): void {
    slot.ending = true;
    if (slot.task)
      this.#settle(slot.task, new Error(`the regular expression search failed: ${error.message}`));
    slot.task = undefined;
  }

  /** Terminates the worker; its slot is freed on exit, so ending threads count toward `size`. */
  #end(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.task = undefined;
    if (slot.ending) return;
    slot.ending = true;
    void slot.worker.terminate();
  }

  #exited(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    this.#slots.delete(slot);
    if (slot.task) this.#settle(slot.task, new Error('the regular expression worker stopped unexpectedly'));
    this.#dispatch();
  }

  #settle(task: Task, outcome: number[] | Error): void {
    if (task.settled) return;
    task.settled = true;
    clearTimeout(task.timer);
    task.detach();
    if (outcome instanceof Error) task.reject(outcome);
    else task.resolve(outcome);
  }
}

function cancelled(): Error {
  return new Error('the search was cancelled');
}

function timedOut(timeoutMs: number, file: string): Error {
  return new Error(
    `the regular expression took longer than ${timeoutMs} ms on ${file}: it probably backtracks ` +
      'catastrophically (nested quantifiers such as (a+)+ or (\\w+\\s?)*); simplify it, or set literal: true',
  );
}
