// Typed record tables on PostgreSQL: the contract the SQLite file and the memory store pass, two
// instances on one schema, and pages read from the index the filter names.
import { describe, expect, it } from 'vitest';
import { recordTable } from '../../core/index.ts';
import type { PostgresStore } from '../../core/store/postgres.ts';
import { taskTables } from '../../plugins/hubos/a2a-task-records.ts';
import { recordsContract } from '../store/records-contract.ts';
import { pgSchemas } from './helpers/pg-schemas.ts';

const { admin, open, newSchema } = pgSchemas('pgrecords');

recordsContract('PostgreSQL', {
  fresh: () => open(newSchema()),
  another: (store) => open((store as PostgresStore).schema),
});

describe('PostgreSQL record tables', () => {
  it('reads a page of an owner, of a tag or of the whole table from its index, in its order', async () => {
    const store = await open(newSchema());
    await recordTable(store, 'warm').count();
    const table = `"${store.schema}".hubos_records`;
    await admin.query(
      `INSERT INTO ${table} (name, key, owner, time, tag, value)
       SELECT CASE WHEN i % 4 = 0 THEN 'other' ELSE 'notes' END, 'k' || i, 'owner' || (i % 50), i,
              CASE WHEN i % 3 = 0 THEN 'sent' ELSE 'draft' END, '{}'
       FROM generate_series(1, 20000) AS i`,
    );
    await admin.query(`ANALYZE ${table}`);
    const plan = async (sql: string) =>
      (await admin.query(`EXPLAIN ${sql}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
    const owner = await plan(
      `SELECT value FROM ${table} WHERE name = 'notes' AND owner = 'owner7' AND (time, key) < (900, 'k9')
       ORDER BY time DESC, key DESC LIMIT 50`,
    );
    expect(owner).toMatch(/Index Scan Backward using hubos_records_owner/);
    expect(owner).not.toMatch(/Sort/);
    const tag = await plan(
      `SELECT value FROM ${table} WHERE name = 'notes' AND tag = 'sent' ORDER BY time, key LIMIT 50`,
    );
    expect(tag).toMatch(/Index Scan using hubos_records_tag/);
    expect(tag).not.toMatch(/Sort/);
    const time = await plan(
      `SELECT value FROM ${table} WHERE name = 'notes' ORDER BY time DESC, key DESC LIMIT 50`,
    );
    expect(time).toMatch(/Index Scan Backward using hubos_records_time/);
    // Retention's delete: the tags' index, never the rows of other tags.
    const deleting = await plan(
      `SELECT name, key FROM ${table} WHERE name = 'notes' AND tag IN ('sent', 'gone') AND time < 9000
       ORDER BY tag, time LIMIT 500`,
    );
    expect(deleting).toMatch(/Index (Only )?Scan using hubos_records_tag/);
  });

  it('creates the table in migration 7 of a schema an older HubOS migrated', async () => {
    const schema = newSchema();
    const [a, b] = await Promise.all([open(schema), open(schema)]);
    await Promise.all([recordTable(a, 'x').count(), recordTable(b, 'x').count()]);
    const versions = await admin.query(`SELECT version FROM "${schema}".hubos_migrations ORDER BY version`);
    expect(versions.rows.map((row) => row.version)).toContain(7);
  });

  it('moves the A2A tasks a schema kept as key/value entries into the task tables once, two instances at once', async () => {
    const schema = newSchema();
    const before = await open(schema);
    for (let i = 0; i < 300; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString();
      await before.set('hubos:a2a:tasks', `helper/t${i}`, {
        owner: 'ada',
        task: { id: `t${i}`, status: { state: 'TASK_STATE_COMPLETED', timestamp: at } },
      });
      await before.set('hubos:a2a:task-runs', `helper/t${i}`, `run-${i}`);
      await before.set('hubos:a2a:task-activity', `${i}/helper/t${i}`, 0);
    }
    const [a, b] = await Promise.all([open(schema), open(schema)]);
    const [here] = await Promise.all([taskTables(a), taskTables(b)]);
    expect(await here.tasks.count({ owner: 'ada', tag: 'TASK_STATE_COMPLETED' })).toBe(300);
    expect(await here.runs.get('helper/t7')).toEqual({ runId: 'run-7' });
    const left = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".hubos_kv`);
    expect(left.rows[0].n).toBe(0);
  });
});
