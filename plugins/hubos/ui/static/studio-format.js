// Words and numbers of the studio views: durations, token counts, costs and times, said the same way everywhere.

export const plural = (count, word, many = `${word}s`) => `${count} ${count === 1 ? word : many}`;

/** 840 ms, 3.2 s, 4 min 05 s. */
export function duration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** 950, 12.4k, 3.1M. */
export function tokens(count) {
  const n = Number(count) || 0;
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** USD with enough digits to tell small calls apart; an unknown cost (no price) is a dash. */
export function cost(usd) {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '—';
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** A time in the reader's clock: today's show the time only. */
export function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

/** ms between two ISO times, or undefined when either is missing. */
export function between(from, to) {
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A value as one line of at most `limit` characters. */
export function brief(value, limit = 120) {
  let text;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? '';
    } catch {
      text = String(value);
    }
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** `CODE: message` of a `{ code, message }` error. */
export const describeError = (error) =>
  `${error?.code ? `${error.code}: ` : ''}${error?.message ?? 'failed'}`;
