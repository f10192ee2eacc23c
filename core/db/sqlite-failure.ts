import { errorMessage, HubosError } from '../errors.ts';

/**
 * Runs a statement of the SQLite file `label`: what it throws becomes STORE_FAILED naming the file
 * (a HubosError passes as it is), so every table on the file fails the same way.
 */
export function onSqlite<T>(label: string, operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    throw HubosError.is(error)
      ? error
      : new HubosError('STORE_FAILED', `store ${label}: ${errorMessage(error)}`, { cause: error });
  }
}
