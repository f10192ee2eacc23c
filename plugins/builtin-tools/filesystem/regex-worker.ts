import { Worker } from 'node:worker_threads';

/** What a regex worker is asked: the 0-based numbers of the lines of `text` that match, at most `max`. */
export interface RegexRequest {
  id: number;
  source: string;
  flags: string;
  text: string;
  max: number;
}

/** Its answer: the matching lines, or why the expression failed (it never throws). */
export type RegexAnswer = { id: number; hits: number[] } | { id: number; error: string };

/**
 * The worker's code (CommonJS, run with `eval`, so no file path differs between the sources and
 * dist/). It keeps the last compiled expression: a search sends the same one for every file.
 */
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
let compiled = { key: '', regex: /$^/ };
parentPort.on('message', ({ id, source, flags, text, max }) => {
  try {
    if (compiled.key !== flags + '/' + source) compiled = { key: flags + '/' + source, regex: new RegExp(source, flags) };
    const lines = text.split('\\n');
    const hits = [];
    for (let i = 0; i < lines.length && hits.length < max; i++) {
      if (compiled.regex.test(lines[i].replace(/\\r$/, ''))) hits.push(i);
    }
    parentPort.postMessage({ id, hits });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

/**
 * A thread that tests regular expressions off the event loop, so a pattern that backtracks
 * catastrophically can be stopped by terminating it (see ./regex-pool.ts, which owns these).
 */
export function startRegexWorker(): Worker {
  return new Worker(WORKER_CODE, {
    eval: true,
    // A pattern cannot make the worker take the server's memory with it.
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
}
