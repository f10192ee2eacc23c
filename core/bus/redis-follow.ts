import type { Redis } from 'ioredis';
import type { LogEntry } from './bus.ts';
import { LOG_ID } from './log-id.ts';
import { decodeEntries, type RawEntries } from './redis-stream.ts';
import type { RedisTail } from './redis-tail.ts';

/** Entries read per catch-up round trip. */
const PAGE = 500;

/**
 * The entries of the stream `key` after `after`, then each new one, until `signal` aborts. It
 * catches up with XRANGE from its cursor on the shared connection `main` (never from the start
 * unless asked), then waits on the instance's one reader (`tail`) for what comes next; when that
 * reader has moved past it (the consumer was slow), it catches up again. Ids are exclusive, so an
 * id trimmed away resumes at the oldest kept; a missing or malformed `after` reads from the start.
 */
export async function* followStream(
  main: Redis,
  tail: RedisTail,
  key: string,
  after: string | undefined,
  signal: AbortSignal,
): AsyncGenerator<LogEntry> {
  let cursor = after !== undefined && LOG_ID.test(after) ? after : '0-0';
  let follower: ReturnType<RedisTail['join']> | undefined;
  try {
    while (!signal.aborted) {
      const page = decodeEntries((await main.xrange(key, `(${cursor}`, '+', 'COUNT', PAGE)) as RawEntries);
      let entries = page;
      if (page.length < PAGE) {
        for (const read of page) {
          cursor = read.id;
          if (read.entry !== undefined) yield { id: read.id, entry: read.entry };
          if (signal.aborted) return;
        }
        // Caught up: from here the shared reader brings what is appended.
        follower ??= tail.join(key, cursor);
        const fresh = await follower.next(cursor, signal);
        if (!fresh) continue;
        entries = fresh;
      }
      for (const read of entries) {
        if (signal.aborted) return;
        cursor = read.id;
        if (read.entry !== undefined) yield { id: read.id, entry: read.entry };
      }
    }
  } finally {
    follower?.leave();
  }
}
