/** Polling instead of sleeping: every wait in the instances tests ends as soon as its condition holds. */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface PollOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Between probes (default 100 ms). */
  intervalMs?: number;
}

/**
 * Calls `probe` until `done(value)` holds and resolves with that value; a probe that throws counts
 * as not done (a service restarting). Fails after the timeout with `what` and the last value or error.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T> | T,
  done: (value: T) => boolean,
  options: PollOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let last: { value?: T; error?: unknown } = {};
  for (;;) {
    try {
      const value = await probe();
      last = { value };
      if (done(value)) return value;
    } catch (error) {
      last = { error };
    }
    if (Date.now() > deadline) {
      const seen =
        'error' in last
          ? `it threw ${String((last.error as Error)?.message ?? last.error)}`
          : `last saw ${safeJson(last.value)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${seen}`);
    }
    await sleep(intervalMs);
  }
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
  } catch {
    return String(value);
  }
}
