import type { ApprovalRecord } from '../agent/approvals.ts';
import { readEntries, type Store } from '../store/store.ts';
import type { ApprovalTable } from './approval-table.ts';

/** Where HubOS kept approvals as key/value records (`<runId>/<callId>`) before they had a table. */
export const STORED_APPROVALS = 'approvals';

/**
 * Moves approvals a store kept as key/value records into the approvals table, each then removed.
 * Several instances may do it at once: an insert of an approval already there changes nothing.
 */
export async function importStoredApprovals(store: Store, table: ApprovalTable): Promise<number> {
  let moved = 0;
  for (const { key, value } of await readEntries(store, STORED_APPROVALS)) {
    const record = value as unknown as ApprovalRecord;
    if (record?.runId && record.callId && record.status && Date.parse(record.requestedAt) >= 0) {
      if (await table.insert(record)) moved++;
    }
    await store.delete(STORED_APPROVALS, key);
  }
  return moved;
}
