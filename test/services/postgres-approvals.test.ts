// The approvals table on PostgreSQL: a schema the previous release wrote (approvals as key/value
// records) opened by two instances at once, decisions by two instances at once, pages that read
// only pending rows, retention that keeps the store bounded, erasure.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openApprovalTable } from '../../core/runs/open-run-table.ts';
import { RUNS_POSTGRES_SQL } from '../../core/runs/run-schema.ts';
import type { PostgresStore } from '../../core/store/postgres.ts';
import { POSTGRES_MIGRATIONS } from '../../core/store/postgres-migrations.ts';
import { approvalAt, approvalsContract } from '../store/approvals-contract.ts';
import { DATABASE_URL } from './env.ts';
import { pgSchemas } from './helpers/pg-schemas.ts';

const { admin, open, newSchema } = pgSchemas('pgapprovals');

approvalsContract('PostgreSQL', {
  fresh: () => open(newSchema()),
  another: (store) => open((store as PostgresStore).schema),
  async previous(approvals) {
    // What the previous release left: its two migrations (key/value, runs), approvals as records.
    const schema = newSchema();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(
      `CREATE TABLE "${schema}".hubos_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await admin.query(`SET search_path TO "${schema}"`);
    await admin.query(POSTGRES_MIGRATIONS[0]!.sql);
    await admin.query(RUNS_POSTGRES_SQL);
    await admin.query('RESET search_path');
    await admin.query(
      `INSERT INTO "${schema}".hubos_migrations (version, name) VALUES (1, 'create hubos_kv'), (2, 'create hubos_runs and hubos_run_steps')`,
    );
    for (const record of approvals)
      await admin.query(
        `INSERT INTO "${schema}".hubos_kv (namespace, key, value) VALUES ('approvals', $1, $2)`,
        [`${record.runId}/${record.callId}`, JSON.stringify(record)],
      );
    // Two instances open it at once: one migrates, both move the records, none is lost or doubled.
    const [a, b] = await Promise.all([open(schema), open(schema)]);
    await Promise.all([openApprovalTable(a), openApprovalTable(b)]);
    const versions = await admin.query(`SELECT version FROM "${schema}".hubos_migrations ORDER BY version`);
    expect(versions.rows.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    const rows = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".hubos_approvals`);
    expect(rows.rows[0].n).toBe(approvals.length);
    return a;
  },
});

describe('PostgreSQL approvals table', () => {
  it("reads an owner's pending approvals (and everyone's) through an index, never the decided ones", async () => {
    const store = await open(newSchema());
    const table = await openApprovalTable(store);
    const now = Date.now();
    await table.put(approvalAt(now, 'run-1', 'c1'));
    // Many decided approvals, and many pending ones of other owners, with the statistics known.
    await admin.query(
      `INSERT INTO "${store.schema}".hubos_approvals (run_id, call_id, owner, status, requested_at, decided_at, record)
       SELECT 'run-x' || i, 'c1', CASE WHEN i % 2 = 0 THEN 'alice' ELSE 'bob' END,
              CASE WHEN i % 2 = 0 THEN 'approved' ELSE 'pending' END, $1::bigint + i, $1::bigint + i, '{}'
       FROM generate_series(1, 4000) AS i`,
      [now],
    );
    await admin.query(`ANALYZE "${store.schema}".hubos_approvals`);
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const plan = async (sql: string) =>
        (await client.query(`EXPLAIN ${sql}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      const from = `"${store.schema}".hubos_approvals`;
      expect(
        await plan(
          `SELECT record FROM ${from} WHERE owner = 'alice' AND status = 'pending' AND (requested_at, run_id, call_id) > (0, '', '') ORDER BY requested_at, run_id, call_id LIMIT 50`,
        ),
        // By its statistics PostgreSQL takes the owner's pending rows, or every owner's pending rows
        // in order filtered by owner: either way an index of pending rows, never the decided ones.
      ).toMatch(/Index Scan using hubos_approvals_(owner_status|pending) /);
      expect(
        await plan(
          `SELECT record FROM ${from} WHERE status = 'pending' ORDER BY requested_at, run_id, call_id LIMIT 50`,
        ),
      ).toMatch(/Index Scan using hubos_approvals_pending/);
    } finally {
      await client.end();
    }
  });
});
