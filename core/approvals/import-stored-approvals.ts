import type { ApprovalRecord } from '../agent/approvals.ts';
import { readEntries, type Store, writeAll } from '../store/store.ts';
import type { ApprovalTable } from './approval-table.ts';

/** Where HubOS kept approvals as key/value records (`<runId>/<callId>`) before they had a table. */
export const STORED_APPROVALS = 'approvals';

/**
 * Moves approvals a store kept as key/value records into the approvals table, each then removed.
 * Several instances may do it at once: an insert of an approval already there changes nothing.
 * Records that are not approvals are dropped.
 */
export async function importStoredApprovals(store: Store, table: ApprovalTable): Promise<number> {
  const entries = await readEntries(store, STORED_APPROVALS);
  let moved = 0;
  // A few thousand at a time: one commit (or statement) each way, however many were kept.
  for (let start = 0; start < entries.length; start += IMPORT_BATCH) {
    const batch = entries.slice(start, start + IMPORT_BATCH);
    const records = batch
      .map(({ value }) => value as unknown as ApprovalRecord)
      .filter(
        (record) => record?.runId && record.callId && record.status && Date.parse(record.requestedAt) >= 0,
      );
    moved += await table.insertMany(records);
    await writeAll(
      store,
      batch.map(({ key }) => ({ namespace: STORED_APPROVALS, key, value: undefined })),
    );
  }
  return moved;
}

const IMPORT_BATCH = 2_000;
