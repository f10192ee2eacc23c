import { HubosError } from '../../../core/index.ts';

/** The error a cancelled command throws: the run's abort reason when it is an Error. */
export function cancelledError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error && signal.reason.name !== 'AbortError') return signal.reason;
  return new HubosError('RUN_CANCELLED', 'the command was cancelled and its processes were stopped');
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts — without waiting for `work`, which
 * goes on cleaning up in the background. The listener is removed after, since one run's signal
 * sees many tool calls.
 */
export async function raceAbort<T>(work: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw cancelledError(signal);
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(cancelledError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
