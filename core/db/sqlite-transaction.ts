import type { DatabaseSync } from 'node:sqlite';

/**
 * Runs `work` in an IMMEDIATE transaction: the write lock is taken at BEGIN, so processes sharing
 * the file queue there (within the busy timeout) instead of failing at their first write. Rolled
 * back if `work` throws.
 */
export function immediately<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
