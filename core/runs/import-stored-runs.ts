import { readEntries, type Store } from '../store/store.ts';
import type { RunRecord } from './run-record.ts';
import type { RunTable } from './run-table.ts';

// Where HubOS kept runs as key/value records before they had tables of their own.
const ENDED = 'hubos:runs';
const ACTIVE = 'hubos:runs:active';
const QUEUED_INPUTS = 'hubos:runs:queued';

/**
 * Moves runs a store kept as key/value records into the runs table, each then removed: ended ones,
 * running ones (a sweep then judges their instance) and queued ones with their input. Several
 * instances may do it at once: an insert of a run already there changes nothing.
 */
export async function importStoredRuns(store: Store, table: RunTable): Promise<number> {
  let moved = 0;
  // Each namespace in one read: a store holding many old runs is not read a query per run.
  const inputs = new Map(
    (await readEntries(store, QUEUED_INPUTS)).map(({ key, value }) => [
      key,
      (value as { input?: string }).input,
    ]),
  );
  for (const namespace of [ENDED, ACTIVE]) {
    for (const { key: id, value } of await readEntries(store, namespace)) {
      const record = value as unknown as RunRecord;
      if (record?.id && record.status && record.createdAt) {
        const input = record.status === 'queued' ? inputs.get(id) : undefined;
        await table.insert({ ...record, ...(input !== undefined ? { input } : {}) });
        moved++;
      }
      await store.delete(namespace, id);
      await store.delete(QUEUED_INPUTS, id);
    }
  }
  return moved;
}
