import { RECORDS_POSTGRES_SQL } from '../records/record-schema.ts';
import {
  APPROVALS_POSTGRES_SQL,
  RUN_JOURNAL_POSTGRES_SQL,
  RUN_MODEL_AGAIN_OF_POSTGRES_SQL,
  RUN_OPTIONS_POSTGRES_SQL,
  RUN_STEP_DETAIL_POSTGRES_SQL,
  RUN_STEP_GUARDRAILS_POSTGRES_SQL,
  RUN_STEP_RETRIES_POSTGRES_SQL,
  RUN_STEP_TRACE_POSTGRES_SQL,
  RUNS_POSTGRES_SQL,
  SESSIONS_POSTGRES_SQL,
} from '../runs/run-schema.ts';
import { SESSION_SEARCH_POSTGRES_SQL } from '../sessions/session-search-schema.ts';

/** One step of the PostgreSQL schema. Applied once each, in order, and recorded in `hubos_migrations`. */
export interface PostgresMigration {
  /** Increasing, never reused: a shipped migration is never edited, a change is a new one. */
  version: number;
  name: string;
  /** Runs with the store's schema first on the search_path, so table names are unqualified. */
  sql: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'create hubos_kv',
    // `value` is the JSON text, not jsonb: jsonb reorders keys and refuses \u0000, and
    // compareAndSet compares the text. `key` is COLLATE "C" so key order is byte order, as in
    // SQLite, and a prefix scan can use the primary key whatever the database's collation.
    sql: `CREATE TABLE hubos_kv (
  namespace text NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, key)
)`,
  },
  { version: 2, name: 'create hubos_runs and hubos_run_steps', sql: RUNS_POSTGRES_SQL },
  { version: 3, name: 'create hubos_run_journal', sql: RUN_JOURNAL_POSTGRES_SQL },
  { version: 4, name: 'create hubos_approvals', sql: APPROVALS_POSTGRES_SQL },
  { version: 5, name: 'add hubos_run_steps.detail', sql: RUN_STEP_DETAIL_POSTGRES_SQL },
  {
    version: 6,
    name: 'create hubos_sessions and hubos_session_messages',
    sql: SESSIONS_POSTGRES_SQL,
  },
  { version: 7, name: 'create hubos_records', sql: RECORDS_POSTGRES_SQL },
  { version: 8, name: 'add the trace columns of hubos_run_steps', sql: RUN_STEP_TRACE_POSTGRES_SQL },
  {
    version: 9,
    name: 'add hubos_runs.model, hubos_runs.again_of and the agent index',
    sql: RUN_MODEL_AGAIN_OF_POSTGRES_SQL,
  },
  { version: 10, name: 'add hubos_run_steps.guardrails', sql: RUN_STEP_GUARDRAILS_POSTGRES_SQL },
  { version: 11, name: 'add hubos_run_steps.retries', sql: RUN_STEP_RETRIES_POSTGRES_SQL },
  {
    version: 12,
    name: 'add hubos_sessions.user_id and the session search index',
    sql: SESSION_SEARCH_POSTGRES_SQL,
  },
  { version: 13, name: 'add hubos_runs.options', sql: RUN_OPTIONS_POSTGRES_SQL },
];
