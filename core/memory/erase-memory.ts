import type { Store } from '../store/store.ts';
import { eraseVectors } from './memory-vectors.ts';
import { eraseWorkingMemory } from './working-memory.ts';

/**
 * Deletes what memory keeps of `owner` beside its sessions (whose search index goes with them):
 * its working memory documents and its recall vectors. How many records went.
 * @internal
 */
export async function eraseMemoryOf(store: Store, owner: string): Promise<number> {
  return (await eraseWorkingMemory(store, owner)) + (await eraseVectors(store, owner));
}
