// Tool results kept on PostgreSQL: 2 MB whole, read only by their principal, pruned with their
// run and erased with their principal.
import { describe, expect, it } from 'vitest';
import { eraseKeptResults, keepResult, pruneKeptResults, readKept } from '../../core/context/kept-results.ts';
import { searchText } from '../../core/context/result-reading.ts';
import { openRunTable } from '../../core/internal.ts';
import { runAt } from '../store/run-table-contract.ts';
import { pgSchemas } from './helpers/pg-schemas.ts';

const { open, newSchema } = pgSchemas('pgkept');
const DAY = 86_400_000;

describe('kept tool results on PostgreSQL', () => {
  it('keeps 2 MB whole per principal, and prunes and erases them', async () => {
    const store = await open(newSchema());
    const now = Date.now();
    const old = runAt(now - 10 * DAY, {
      status: 'completed',
      finishedAt: new Date(now - 10 * DAY).toISOString(),
    });
    await (await openRunTable(store)).insert(old);
    const text = `${'row of data\n'.repeat(180_000)}MARKER-pg 99\n${'tail\n'.repeat(10)}`;
    const kept = (runId: string, principal: string) =>
      keepResult(store, { principal, runId, agent: 'helper', tool: 'dump', callId: 'c1', text });
    const alice = await kept(runAt(now).id, 'alice');
    const aliceOld = await kept(old.id, 'alice');
    const bob = await kept(runAt(now).id, 'bob');

    const read = await readKept(store, alice, 'alice');
    expect(read.text.length).toBe(text.length);
    expect(searchText(read.text, { pattern: 'MARKER-pg' })).toContain('180001> MARKER-pg 99');
    await expect(readKept(store, alice, 'bob')).rejects.toThrow(/no kept result/);

    expect(await pruneKeptResults(store, { maxAgeDays: 7 }, now)).toBe(1);
    await expect(readKept(store, aliceOld, 'alice')).rejects.toThrow(/no kept result/);
    expect(await eraseKeptResults(store, 'alice')).toBe(1);
    await expect(readKept(store, alice, 'alice')).rejects.toThrow(/no kept result/);
    expect((await readKept(store, bob, 'bob')).text).toBe(text);
  });
});
