/**
 * Ids of log entries, as Redis streams spell them: `<position>-<n>`, ordered by position, then n.
 * An entry appended at a position (a run's event at its seq) is `<position>-0`, so a reader can
 * start right after any position without reading what comes before; an entry appended after the
 * last one takes the last position and the next n (a run's end is `<last seq>-1`).
 */

/** An id both buses accept: two parts below 2^64, or one (n is then 0). */
export const LOG_ID = /^\d{1,19}(-\d{1,19})?$/;

/** The id of the entry at `position`. */
export function logId(position: number): string {
  return `${position}-0`;
}

/** The position an id names (its first part); 0 for an id that is not a log id. */
export function positionOf(id: string): number {
  return LOG_ID.test(id) ? Number(id.split('-')[0]) : 0;
}

/** Orders two valid ids (negative, zero or positive, as for sort). */
export function compareLogIds(a: string, b: string): number {
  const [aPos = '0', aN = '0'] = a.split('-');
  const [bPos = '0', bN = '0'] = b.split('-');
  return compareDigits(aPos, bPos) || compareDigits(aN, bN);
}

/** Compares decimal strings without losing precision past 2^53. */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
}
