import { HubosError } from '../../../core/index.ts';

/** The error a cancelled command throws: the run's abort reason when it is an Error. */
export function cancelledError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error && signal.reason.name !== 'AbortError') return signal.reason;
  return new HubosError('RUN_CANCELLED', 'the command was cancelled and its processes were stopped');
}
