// The runs tables on PostgreSQL: the same contract as on SQLite, claims by instances at once, and
// a schema written by the key/value-only release (runs as JSON records) moved into the tables.
import { describe, expect, it } from 'vitest';
import { openRunTable, openSessionTable } from '../../core/runs/open-run-table.ts';
import { type PostgresQuery, PostgresRunTable } from '../../core/runs/postgres-run-table.ts';
import { POSTGRES_MIGRATIONS } from '../../core/store/postgres-migrations.ts';
import { runAt, runTableContract } from '../store/run-table-contract.ts';
import { stepTraceContract, tracedSteps } from '../store/step-trace-contract.ts';
import { pgSchemas } from './helpers/pg-schemas.ts';

const { admin, open, newSchema } = pgSchemas('pgruns');
const freshStore = () => open(newSchema());

runTableContract('PostgreSQL', async () => openRunTable(await freshStore()));
stepTraceContract('PostgreSQL', async () => openRunTable(await freshStore()));

describe('PostgreSQL runs table', () => {
  it("tells a run's end written when the store ran its statement again (its first answer lost after the commit)", async () => {
    const store = await freshStore();
    await openRunTable(store);
    // Every statement run twice, as the store's retry does when the connection drops after a commit.
    const twice: PostgresQuery = async <R>(sql: string, params: unknown[], prepared?: boolean) => {
      await store.query(sql, params, prepared);
      return store.query(sql, params, prepared) as unknown as Promise<{ rows: R[]; rowCount: number | null }>;
    };
    const table = new PostgresRunTable(twice, store.schema);
    const at = new Date().toISOString();
    const run = runAt(Date.now(), { status: 'running', instance: 'i-a', startedAt: at });
    await table.insert(run);
    const step = {
      runId: run.id,
      seq: 1,
      kind: 'model' as const,
      name: 'm',
      step: 1,
      startedAt: at,
      finishedAt: at,
      durationMs: 0,
      status: 'ok' as const,
    };
    const done = { ...run, status: 'completed' as const, finishedAt: at, updatedAt: at };
    expect(await table.finish(done, { status: 'running', instance: 'i-a' }, [step])).toBe(true);
    expect(await table.get(run.id)).toMatchObject({ status: 'completed', instance: 'i-a' });
    expect(await table.steps(run.id)).toHaveLength(1);
    // Another end of the same run is still refused.
    const other = { ...done, status: 'failed' as const };
    expect(await table.finish(other, { status: 'running', instance: 'i-a' }, [])).toBe(false);
  });

  it("adds the steps' trace columns (migration 8) to a schema of the previous release, keeping its steps", async () => {
    const schema = newSchema();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(
      `CREATE TABLE "${schema}".hubos_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await admin.query(`SET search_path TO "${schema}"`);
    for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 7)) {
      await admin.query(migration.sql);
      await admin.query('INSERT INTO hubos_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    const run = runAt(Date.now(), { status: 'completed' });
    await admin.query(
      "INSERT INTO hubos_runs (id, agent, owner, via, status, created_at) VALUES ($1, 'helper', 'alice', 'rest', 'completed', $2)",
      [run.id, Date.now()],
    );
    await admin.query(
      "INSERT INTO hubos_run_steps (run_id, seq, kind, name, step, started_at, finished_at, status) VALUES ($1, 1, 'tool', 'echo', 1, 10, 25, 'ok')",
      [run.id],
    );
    await admin.query('SET search_path TO DEFAULT');
    const table = await openRunTable(await open(schema));
    const versions = await admin.query(`SELECT version FROM "${schema}".hubos_migrations ORDER BY version`);
    expect(versions.rows.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    expect(await table.steps(run.id)).toEqual([
      expect.objectContaining({ seq: 1, kind: 'tool', name: 'echo', durationMs: 15 }),
    ]);
    expect((await table.step(run.id, 1))?.payload).toBeNull();
    const [, traced] = tracedSteps(run.id);
    await table.addSteps([{ ...traced!, seq: 2 }]);
    const read = await table.step(run.id, 2);
    expect(read?.step).toMatchObject({ track: traced!.track, approval: traced!.approval });
    expect(JSON.parse(read!.payload!)).toEqual({ input: { path: 'a.txt' }, output: 'ok' });
  });

  it("adds the steps' guardrails column (migration 10) to a schema of the previous release, keeping its steps", async () => {
    const schema = newSchema();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(
      `CREATE TABLE "${schema}".hubos_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await admin.query(`SET search_path TO "${schema}"`);
    for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 9)) {
      await admin.query(migration.sql);
      await admin.query('INSERT INTO hubos_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    const run = runAt(Date.now(), { status: 'running', instance: 'i-a' });
    await admin.query(
      "INSERT INTO hubos_runs (id, agent, owner, via, status, instance, created_at) VALUES ($1, 'helper', 'alice', 'rest', 'running', 'i-a', $2)",
      [run.id, Date.now()],
    );
    await admin.query(
      "INSERT INTO hubos_run_steps (run_id, seq, kind, name, step, started_at, finished_at, status) VALUES ($1, 1, 'model', 'scripted', 1, 10, 25, 'ok')",
      [run.id],
    );
    await admin.query('SET search_path TO DEFAULT');
    const table = await openRunTable(await open(schema));
    const versions = await admin.query(`SELECT version FROM "${schema}".hubos_migrations ORDER BY version`);
    expect(versions.rows.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    const [old] = await table.steps(run.id);
    expect(old).toMatchObject({ seq: 1, kind: 'model' });
    expect(old).not.toHaveProperty('guardrails');
    // Each way a step is written keeps its verdicts: a batch, one kept as it finishes, and the run's end.
    const [model, tool] = tracedSteps(run.id);
    await table.addSteps([{ ...model!, seq: 2 }], 'i-a');
    expect(await table.keepStep({ ...tool!, seq: 0 }, 'i-a')).toBe(true);
    const done = { ...run, status: 'completed' as const, finishedAt: new Date().toISOString() };
    expect(await table.finish(done, { status: 'running', instance: 'i-a' }, [{ ...tool!, seq: 4 }])).toBe(
      true,
    );
    const steps = await table.steps(run.id);
    expect(steps.map((step) => [step.seq, step.guardrails])).toEqual([
      [1, undefined],
      [2, model!.guardrails],
      [3, tool!.guardrails],
      [4, tool!.guardrails],
    ]);
  });

  it('gives each of 200 queued runs to exactly one of 4 instances claiming at once', async () => {
    const first = await freshStore();
    const table = await openRunTable(first);
    const others = await Promise.all(
      [1, 2, 3].map(async () => {
        return openRunTable(await open(first.schema));
      }),
    );
    const start = Date.now() - 60_000;
    for (let i = 0; i < 200; i++) await table.insert(runAt(start + i));
    const claimers = [table, ...others].map(async (claimer, n) => {
      const mine: string[] = [];
      for (;;) {
        const taken = await claimer.claimQueued(`i-${n}`, 3, Date.now());
        if (taken.length === 0) return mine;
        mine.push(...taken.map((run) => run.id));
      }
    });
    const all = (await Promise.all(claimers)).flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
  });

  it('moves runs a schema kept as key/value records into the tables, with nothing lost', async () => {
    // What the key/value-only release left: its one migration, and runs as JSON records.
    const schema = newSchema();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(
      `CREATE TABLE "${schema}".hubos_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await admin.query(
      `CREATE TABLE "${schema}".hubos_kv (namespace text NOT NULL, key text COLLATE "C" NOT NULL, value text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (namespace, key))`,
    );
    await admin.query(
      `INSERT INTO "${schema}".hubos_migrations (version, name) VALUES (1, 'create hubos_kv')`,
    );
    const ended = runAt(Date.now() - 2, {
      status: 'completed',
      result: { text: 'old answer' } as never,
      finishedAt: new Date().toISOString(),
    });
    const queued = runAt(Date.now() - 1, { status: 'queued', input: undefined });
    const put = (namespace: string, key: string, value: unknown) =>
      admin.query(`INSERT INTO "${schema}".hubos_kv (namespace, key, value) VALUES ($1, $2, $3)`, [
        namespace,
        key,
        JSON.stringify(value),
      ]);
    await put('hubos:runs', ended.id, ended);
    await put('hubos:runs:active', queued.id, queued);
    await put('hubos:runs:queued', queued.id, { input: 'still to do' });
    await put('sessions:helper', 's/1', { role: 'user', content: 'kept' });

    // Two instances open it at once: one migrates, both see the same runs.
    const [a, b] = await Promise.all([open(schema), open(schema)]);
    const [ta, tb] = await Promise.all([openRunTable(a), openRunTable(b)]);
    expect(await ta.get(ended.id)).toEqual(ended);
    expect(await tb.get(queued.id)).toEqual({ ...queued, input: 'still to do' });
    expect(await a.list('hubos:runs')).toEqual([]);
    expect(await a.list('hubos:runs:active')).toEqual([]);
    expect(await a.list('hubos:runs:queued')).toEqual([]);
    // The session moved to its table too.
    expect(await a.get('sessions:helper', 's/1')).toBeUndefined();
    expect(await (await openSessionTable(b)).load('helper', 's')).toEqual([
      { role: 'user', content: 'kept' },
    ]);
    const versions = await admin.query(`SELECT version FROM "${schema}".hubos_migrations ORDER BY version`);
    expect(versions.rows.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
  });

  it('indexes the runs by agent and status, and searches the input with its wildcards as plain characters', async () => {
    const store = await freshStore();
    const table = await openRunTable(store);
    const base = Date.now() - 60_000;
    for (let i = 0; i < 300; i++)
      await table.insert(
        runAt(base + i, { agent: `a${i % 3}`, input: i === 150 ? 'the 100% Invoice' : `q ${i}` }),
      );
    const { rows } = await admin.query(
      "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname IN ('hubos_runs_input', 'hubos_runs_agent') ORDER BY indexname",
      [store.schema],
    );
    expect(rows.map((row) => row.indexname)).toEqual(['hubos_runs_agent']);
    expect((await table.list({ q: '0% inv', limit: 50 })).map((run) => run.input)).toEqual([
      'the 100% Invoice',
    ]);
  });
});
