import { Worker } from 'node:worker_threads';

/**
 * The worker's code (CommonJS, run with `eval`, so no file path differs between the sources and
 * dist/). It tests each line of a text against the expression and answers the matching line numbers.
 */
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
let compiled = { key: '', regex: /$^/ };
parentPort.on('message', ({ id, source, flags, text, max }) => {
  if (compiled.key !== flags + '/' + source) compiled = { key: flags + '/' + source, regex: new RegExp(source, flags) };
  const lines = text.split('\\n');
  const hits = [];
  for (let i = 0; i < lines.length && hits.length < max; i++) {
    if (compiled.regex.test(lines[i].replace(/\\r$/, ''))) hits.push(i);
  }
  parentPort.postMessage({ id, hits });
});
`;

/** Warm workers waiting for the next search: starting one costs tens of milliseconds. */
const idle: Worker[] = [];
const MAX_IDLE = 2;

function spawnWorker(): Worker {
  const worker = new Worker(WORKER_CODE, {
    eval: true,
    // A pattern cannot make the worker take the server's memory with it.
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
  // Idle workers never keep the process alive; a search in progress has its own timer that does.
  worker.unref();
  // One that dies while idle is not handed out again.
  worker.once('exit', () => {
    const at = idle.indexOf(worker);
    if (at !== -1) idle.splice(at, 1);
  });
  return worker;
}

interface Pending {
  resolve(hits: number[]): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Runs a regular expression off the event loop, with a time limit per text: a pattern that
 * backtracks catastrophically (`(a+)+$` on a long line of a's) would otherwise stall the whole
 * server. Past the limit the worker is terminated and the search fails saying why. Each search has
 * a worker of its own while it runs (taken from a few kept warm, or started), given back by `close()`.
 */
export class RegexWorker {
  readonly #source: string;
  readonly #flags: string;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  #detach: () => void = () => undefined;
  #ids = 0;

  constructor(source: string, flags: string, timeoutMs: number) {
    this.#source = source;
    this.#flags = flags;
    this.#timeoutMs = timeoutMs;
  }

  /** The 0-based numbers of the lines of `text` that match, at most `max`. */
  match(text: string, max: number, describe: () => string): Promise<number[]> {
    const worker = this.#start();
    const id = ++this.#ids;
    const source = this.#source;
    const flags = this.#flags;
    return new Promise<number[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#fail(
          new Error(
            `the regular expression took longer than ${this.#timeoutMs} ms on ${describe()}: it probably backtracks ` +
              'catastrophically (nested quantifiers such as (a+)+ or (\\w+\\s?)*); simplify it, or set literal: true',
          ),
        );
      }, this.#timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, source, flags, text, max });
    });
  }

  /** Gives the worker back (or ends it if a match is still running: it may be stuck); a waiting match fails with `reason`. */
  close(reason: Error = new Error('the search was stopped')): void {
    const worker = this.#worker;
    if (worker && this.#pending.size === 0) {
      this.#worker = undefined;
      this.#detach();
      if (idle.length < MAX_IDLE) idle.push(worker);
      else void worker.terminate();
      return;
    }
    this.#fail(reason);
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = idle.pop() ?? spawnWorker();
    const onMessage = ({ id, hits }: { id: number; hits: number[] }) => {
      const pending = this.#pending.get(id);
      if (!pending) return;
      clearTimeout(pending.timer);
      this.#pending.delete(id);
      pending.resolve(hits);
    };
    const onError = (error: Error) =>
      this.#fail(new Error(`the regular expression search failed: ${error.message}`));
    const onExit = () => {
      if (this.#worker === worker) this.#fail(new Error('the regular expression worker stopped'));
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    this.#detach = () => worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    this.#worker = worker;
    return worker;
  }

  #fail(error: Error): void {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#detach();
    void worker?.terminate();
    for (const { reject, timer } of this.#pending.values()) {
      clearTimeout(timer);
      reject(error);
    }
    this.#pending.clear();
  }
}
