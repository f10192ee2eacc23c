import type { Readable } from 'node:stream';

/**
 * The last lines a child process wrote to stderr, kept to explain why it failed. Reading the
 * stream also keeps the pipe drained, so a chatty server never blocks on a full buffer.
 */
export class StderrTail {
  readonly #max: number;
  readonly #lines: string[] = [];
  #partial = '';

  constructor(stream: Readable | null, max = 20) {
    this.#max = max;
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => this.#push(chunk));
  }

  /** The last lines (the unfinished one too), without blank lines, each cut to 500 characters. */
  lines(): string[] {
    const all = this.#partial.trim() === '' ? this.#lines : [...this.#lines, this.#partial];
    return all.slice(-this.#max);
  }

  #push(chunk: string): void {
    const parts = (this.#partial + chunk).split(/\r?\n/);
    this.#partial = parts.pop() ?? '';
    for (const line of parts) {
      if (line.trim() === '') continue;
      this.#lines.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
      if (this.#lines.length > this.#max) this.#lines.shift();
    }
    if (this.#partial.length > 4_000) this.#partial = this.#partial.slice(-4_000);
  }
}
