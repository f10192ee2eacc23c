import type { Redis } from 'ioredis';
import type { StoreValue } from '../store/store.ts';
import type { LogEntry } from './bus.ts';

/** Each XREAD blocks at most this long, then the loop asks again (and sees an abort between). */
const BLOCK_MS = 5_000;
/** Entries read per round trip. */
const PAGE = 500;
/** A stream id Redis accepts (`ms-seq` or `ms`, each part below 2^64). */
const STREAM_ID = /^\d{1,19}(-\d{1,19})?$/;

/**
 * The entries of the stream `key` after `after`, then each new one, read on `reader` (a connection
 * of its own: a blocking XREAD holds it) until `signal` aborts. One XREAD loop does both: it
 * answers at once while older entries remain and blocks once it has caught up. Ids are exclusive,
 * so an id trimmed away resumes at the oldest kept; a missing or malformed `after` reads from the start.
 */
export async function* readStream(
  reader: Redis,
  key: string,
  after: string | undefined,
  signal: AbortSignal,
): AsyncGenerator<LogEntry> {
  let last = after !== undefined && STREAM_ID.test(after) ? after : '0-0';
  while (!signal.aborted) {
    const reply = await reader.xread('COUNT', PAGE, 'BLOCK', BLOCK_MS, 'STREAMS', key, last);
    const entries = (reply as [string, [string, string[]][]][] | null)?.[0]?.[1] ?? [];
    for (const [id, fields] of entries) {
      if (signal.aborted) return;
      last = id;
      const entry = decode(fields);
      if (entry !== undefined) yield { id, entry };
    }
  }
}

/** The JSON in field `e` of a stream entry; undefined for an entry some other writer added. */
function decode(fields: string[]): StoreValue | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== 'e') continue;
    try {
      return JSON.parse(fields[i + 1]!) as StoreValue;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
