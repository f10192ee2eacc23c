import { recordTable } from '../records/typed-record-table.ts';
import { perStore } from '../store/per-store.ts';
import type { Store } from '../store/store.ts';
import { MAX_WORKING_MEMORY } from './memory-config.ts';
import { type MemoryScope, scopeKey } from './memory-scope.ts';

/** One working memory document as kept: its scope, filed by owner (erasure) and time. */
export interface WorkingMemoryRecord {
  owner: string;
  userId: string;
  agent: string;
  text: string;
  updatedAt: number;
}

export const WORKING_MEMORY_TABLE = 'memory.working';

const table = perStore((store) =>
  recordTable<WorkingMemoryRecord>(store, WORKING_MEMORY_TABLE, {
    owner: (record) => record.owner,
    time: (record) => record.updatedAt,
  }),
);

/** The scope's document, '' when it has none: one read by its key. */
export async function readWorkingMemory(store: Store, scope: MemoryScope): Promise<string> {
  return (await table(store).get(scopeKey(scope)))?.text ?? '';
}

/** Replaces the scope's document (at most `MAX_WORKING_MEMORY` characters: the caller checks). */
export async function writeWorkingMemory(store: Store, scope: MemoryScope, text: string): Promise<void> {
  if (text.length > MAX_WORKING_MEMORY)
    throw new RangeError(`working memory is at most ${MAX_WORKING_MEMORY} characters`);
  await table(store).put(scopeKey(scope), { ...scope, text, updatedAt: Date.now() });
}

/** Deletes every working memory document of `owner`, a batch at a time; how many went. */
export async function eraseWorkingMemory(store: Store, owner: string): Promise<number> {
  let erased = 0;
  for (let batch = -1; batch !== 0; erased += batch)
    batch = (await table(store).deleteWhere({ owner, limit: 500 })).length;
  return erased;
}
