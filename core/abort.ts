/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts, without waiting
 * for work that cannot be cancelled (a DNS lookup, a step ignoring its signal). The listener is
 * removed after, since one run's signal sees many calls.
 * @internal
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
