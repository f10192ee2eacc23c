// The sessions tables on PostgreSQL: a schema the previous release wrote (sessions as key/value
// entries) opened by two instances at once, appends by two instances at once, retention by the
// last-active index, erasure by owner across agents, a load in one statement.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/index.ts';
import { openSessionTable } from '../../core/runs/open-run-table.ts';
import type { PostgresQuery } from '../../core/runs/postgres-run-table.ts';
import { PostgresSessionTable } from '../../core/sessions/postgres-session-table.ts';
import type { PostgresStore } from '../../core/store/postgres.ts';
import { POSTGRES_MIGRATIONS } from '../../core/store/postgres-migrations.ts';
import { sessionTableContract } from '../store/session-table-contract.ts';
import { pgSchemas } from './helpers/pg-schemas.ts';

const { admin, open, newSchema } = pgSchemas('pgsessions');

sessionTableContract('PostgreSQL', {
  fresh: () => open(newSchema()),
  another: (store) => open((store as PostgresStore).schema),
  async previous(entries) {
    // What the previous release left: its five migrations, sessions as key/value entries.
    const schema = newSchema();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(
      `CREATE TABLE "${schema}".hubos_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await admin.query(`SET search_path TO "${schema}"`);
    for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 5)) {
      await admin.query(migration.sql);
      await admin.query('INSERT INTO hubos_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await admin.query('RESET search_path');
    await admin.query(
      `INSERT INTO "${schema}".hubos_kv (namespace, key, value)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`,
      [
        entries.map((e) => e.namespace),
        entries.map((e) => e.key),
        entries.map((e) => JSON.stringify(e.value)),
      ],
    );
    // Two instances open it at once: one migrates, both move the sessions, none is lost or doubled.
    return Promise.all([open(schema), open(schema)]);
  },
});

describe('PostgreSQL sessions table', () => {
  it('loads a session, or its last messages, in one statement', async () => {
    const store = await open(newSchema());
    await openSessionTable(store);
    let statements = 0;
    const counted: PostgresQuery = <R>(sql: string, params: unknown[]) => {
      statements++;
      return store.query(sql, params) as unknown as Promise<{ rows: R[]; rowCount: number | null }>;
    };
    const table = new PostgresSessionTable(counted, store.schema);
    const messages: Message[] = Array.from({ length: 50 }, (_, i) => ({ role: 'user', content: `m${i}` }));
    await table.append('helper', 's', 'alice', messages);
    statements = 0;
    expect(await table.load('helper', 's')).toEqual(messages);
    expect(await table.load('helper', 's', 5)).toEqual(messages.slice(45));
    expect(statements).toBe(2);
  });

  it('appends nothing twice when the store runs an append statement again (its answer lost)', async () => {
    const store = await open(newSchema());
    await openSessionTable(store);
    // Every statement run twice, as the store's retry does when the connection drops after a commit.
    const twice: PostgresQuery = async <R>(sql: string, params: unknown[]) => {
      await store.query(sql, params);
      return store.query(sql, params) as unknown as Promise<{ rows: R[]; rowCount: number | null }>;
    };
    const table = new PostgresSessionTable(twice, store.schema);
    await table.append('helper', 'new', 'alice', [{ role: 'user', content: 'first' }]);
    await table.append('helper', 'new', 'alice', [
      { role: 'assistant', content: 'second' },
      { role: 'user', content: 'third' },
    ]);
    expect((await table.load('helper', 'new')).map((message) => message.content)).toEqual([
      'first',
      'second',
      'third',
    ]);
    expect(await table.listOwned('alice', 5)).toMatchObject([{ messageCount: 3 }]);
  });

  it('finds idle sessions, an owner’s and a session’s messages by their indexes', async () => {
    const store = await open(newSchema());
    await openSessionTable(store);
    // An empty table is read whole whichever way: sequential scans off, the plan shows the index.
    const plan = async (sql: string) => {
      await admin.query('SET enable_seqscan = off');
      const { rows } = await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`);
      await admin.query('RESET enable_seqscan');
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    };
    const table = `"${store.schema}"`;
    expect(
      await plan(
        `SELECT agent, session_id FROM ${table}.hubos_sessions WHERE last_active < 5 ORDER BY last_active LIMIT 50`,
      ),
    ).toMatch(/hubos_sessions_last_active/);
    expect(
      await plan(`SELECT agent, session_id FROM ${table}.hubos_sessions WHERE owner = 'alice' LIMIT 50`),
    ).toMatch(/hubos_sessions_owner/);
    expect(
      await plan(
        `SELECT message FROM ${table}.hubos_session_messages WHERE agent = 'a' AND session_id = 's' ORDER BY seq DESC LIMIT 20`,
      ),
    ).toMatch(/hubos_session_messages_pkey/);
  });

  it("erases an owner's sessions with every message, while appends to them go on from another instance", async () => {
    const schema = newSchema();
    const table = await openSessionTable(await open(schema));
    const writer = await openSessionTable(await open(schema));
    const said: Message = { role: 'user', content: 'hi' };
    // A few rounds: the race (an append committed between the delete's snapshot and its lock) is narrow.
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 200; i++) await writer.append('a', `s${i}`, 'ada', [said]);
      let stop = false;
      const appends = (async () => {
        while (!stop)
          await Promise.all(
            [0, 1, 2, 3].map(() =>
              writer.append('a', `s${Math.floor(Math.random() * 200)}`, 'ada', [said, said]),
            ),
          );
      })();
      for (let batch = 500; batch === 500; ) batch = (await table.deleteOwned('ada', 500)).sessions;
      stop = true;
      await appends;
      // Every message left belongs to a session row: none was left behind by the erasure.
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM "${schema}".hubos_session_messages m WHERE NOT EXISTS
           (SELECT 1 FROM "${schema}".hubos_sessions s WHERE s.agent = m.agent AND s.session_id = m.session_id)`,
      );
      expect(rows[0].n, `round ${round}`).toBe(0);
      for (let batch = 500; batch === 500; ) batch = (await table.deleteOwned('ada', 500)).sessions;
    }
  }, 120_000);
});
