import type { StoreValue } from '../store/store.ts';

/** Stream entries as XRANGE answers them: `[id, [field, value, …]]`. */
export type RawEntries = [string, string[]][];
/** XREAD's answer: per stream, its entries; null when it timed out. */
export type StreamReply = [string, RawEntries][] | null;

/** An entry as read: `entry` is undefined for one some other writer added (skipped, not stopped at). */
export interface ReadEntry {
  id: string;
  entry: StoreValue | undefined;
}

export function decodeEntries(raw: RawEntries): ReadEntry[] {
  return raw.map(([id, fields]) => ({ id, entry: decode(fields) }));
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
