import { approvalTable } from '../approvals/approval-schema.ts';
import type { SqliteMigration } from '../db/sqlite-migrations.ts';
import { recordsTable } from '../records/record-schema.ts';
import { sessionTables } from '../sessions/session-schema.ts';
import { SESSION_SEARCH_SQLITE_SQL } from '../sessions/session-search-schema.ts';

/**
 * The runs tables, the same in both dialects but for their types. Run ids are UUIDv7 (time first),
 * so the primary key is also the time order: lists page by id, and a time range is an id range.
 * Only unfinished runs are in the `active` index, which is what sweeps and claims read.
 */
function runTables(dialect: 'sqlite' | 'postgres'): string {
  const text = dialect === 'sqlite' ? 'TEXT' : 'text COLLATE "C"';
  const time = dialect === 'sqlite' ? 'INTEGER' : 'bigint';
  const int = dialect === 'sqlite' ? 'INTEGER' : 'integer';
  return `
CREATE TABLE hubos_runs (
  id ${text} PRIMARY KEY,
  agent ${text} NOT NULL,
  owner ${text} NOT NULL,
  session_id ${text},
  via ${text} NOT NULL,
  status ${text} NOT NULL,
  instance ${text},
  cancel_requested ${int} NOT NULL DEFAULT 0,
  steps ${int} NOT NULL DEFAULT 0,
  input ${text},
  result ${text},
  error ${text},
  created_at ${time} NOT NULL,
  started_at ${time},
  updated_at ${time},
  finished_at ${time}
);
CREATE INDEX hubos_runs_owner ON hubos_runs (owner, id);
CREATE INDEX hubos_runs_session ON hubos_runs (owner, session_id, id) WHERE session_id IS NOT NULL;
CREATE INDEX hubos_runs_active ON hubos_runs (status, instance) WHERE status IN ('queued', 'running');
CREATE TABLE hubos_run_steps (
  run_id ${text} NOT NULL,
  seq ${int} NOT NULL,
  kind ${text} NOT NULL,
  name ${text} NOT NULL,
  step ${int} NOT NULL,
  call_id ${text},
  started_at ${time} NOT NULL,
  finished_at ${time} NOT NULL,
  status ${text} NOT NULL,
  usage ${text},
  finish_reason ${text},
  error ${text},
  PRIMARY KEY (run_id, seq)
);`;
}

/**
 * What a run needs to resume on another instance: the messages of its model and tool calls, kept
 * from the moment a call's outcome is known until the run ends (then dropped); and whether the run
 * may resume at all (an agent's run may; a Stars team run or an AG-UI run with client tools may not).
 */
function journalTable(dialect: 'sqlite' | 'postgres'): string {
  const text = dialect === 'sqlite' ? 'TEXT' : 'text COLLATE "C"';
  const int = dialect === 'sqlite' ? 'INTEGER' : 'integer';
  return `
ALTER TABLE hubos_runs ADD COLUMN resumable ${int} NOT NULL DEFAULT 0;
ALTER TABLE hubos_runs ADD COLUMN resumes ${int} NOT NULL DEFAULT 0;
CREATE TABLE hubos_run_journal (
  run_id ${text} NOT NULL,
  seq ${int} NOT NULL,
  step ${int} NOT NULL,
  messages ${text} NOT NULL,
  PRIMARY KEY (run_id, seq)
);`;
}

/**
 * What a step that is not a model or tool call keeps with its row (a workflow's step: its key, its
 * output, its attempts; a condition's answer), as JSON: a resumed run replays it instead of running
 * the step again, and it stays after the run ends (a workflow run is resumed by hand from it).
 */
function stepDetail(): string {
  return 'ALTER TABLE hubos_run_steps ADD COLUMN detail TEXT;';
}

/**
 * What the studio shows of a step: whose track it is on (a sub-agent's, a Stars member's), the
 * model's time to first token, the permission verdict and the approval, a preview, and the full
 * payload (tool input and output, model answer) in a column of its own that lists never read.
 */
function stepTrace(dialect: 'sqlite' | 'postgres'): string {
  const text = dialect === 'sqlite' ? 'TEXT' : 'text';
  const int = dialect === 'sqlite' ? 'INTEGER' : 'integer';
  return ['track', 'first_token_ms', 'permission', 'approval', 'preview', 'payload_bytes', 'payload']
    .map(
      (column) =>
        `ALTER TABLE hubos_run_steps ADD COLUMN ${column} ${column.endsWith('_ms') || column.endsWith('_bytes') ? int : text};`,
    )
    .join('\n');
}

/**
 * What a run was asked beyond its agent and input: the model it runs on when not its agent's own
 * (a run started again on another model), and the run it repeats. And what the Runs list asks
 * without an owner to narrow it: an agent's runs (by status), newest first.
 */
function runModelAndAgainOf(dialect: 'sqlite' | 'postgres'): string {
  const text = dialect === 'sqlite' ? 'TEXT' : 'text COLLATE "C"';
  return `
ALTER TABLE hubos_runs ADD COLUMN model ${text};
ALTER TABLE hubos_runs ADD COLUMN again_of ${text};
CREATE INDEX hubos_runs_agent ON hubos_runs (agent, status, id);`;
}

/** What a run was asked that its agent's run needs on whichever instance runs it (its budget), as JSON. */
function runOptions(dialect: 'sqlite' | 'postgres'): string {
  return `ALTER TABLE hubos_runs ADD COLUMN options ${dialect === 'sqlite' ? 'TEXT' : 'text'};`;
}

/** What guardrails said in a step (their verdicts, as JSON): the trace shows them with it. */
function stepGuardrails(): string {
  return 'ALTER TABLE hubos_run_steps ADD COLUMN guardrails TEXT;';
}

/** A model step's retries and failovers (as JSON): the trace shows why each attempt failed. */
function stepRetries(): string {
  return 'ALTER TABLE hubos_run_steps ADD COLUMN retries TEXT;';
}

export const RUNS_SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  { version: 1, name: 'create hubos_runs and hubos_run_steps', sql: runTables('sqlite') },
  { version: 2, name: 'create hubos_run_journal', sql: journalTable('sqlite') },
  // Approvals live beside the runs they belong to: a run deleted takes its approvals with it.
  { version: 3, name: 'create hubos_approvals', sql: approvalTable('sqlite') },
  { version: 4, name: 'add hubos_run_steps.detail', sql: stepDetail() },
  // Sessions beside the runs: erasure and retention delete them by owner and by last activity.
  { version: 5, name: 'create hubos_sessions and hubos_session_messages', sql: sessionTables('sqlite') },
  // Plugins' typed records, in the store's file: see core/records.
  { version: 6, name: 'create hubos_records', sql: recordsTable('sqlite') },
  { version: 7, name: 'add the trace columns of hubos_run_steps', sql: stepTrace('sqlite') },
  {
    version: 8,
    name: 'add hubos_runs.model, hubos_runs.again_of and the agent index',
    sql: runModelAndAgainOf('sqlite'),
  },
  { version: 9, name: 'add hubos_run_steps.guardrails', sql: stepGuardrails() },
  { version: 10, name: 'add hubos_run_steps.retries', sql: stepRetries() },
  // Sessions searchable by their owner's end user (memory's recall): see core/sessions/session-search-schema.ts.
  {
    version: 11,
    name: 'add hubos_sessions.user_id and the session search index',
    sql: SESSION_SEARCH_SQLITE_SQL,
  },
  { version: 12, name: 'add hubos_runs.options', sql: runOptions('sqlite') },
];

/** The PostgreSQL store's migrations that add them (their versions follow the store's own). */
export const RUNS_POSTGRES_SQL = runTables('postgres');
export const RUN_JOURNAL_POSTGRES_SQL = journalTable('postgres');

/** The PostgreSQL store's migration that adds the approvals table. */
export const APPROVALS_POSTGRES_SQL = approvalTable('postgres');
export const RUN_STEP_DETAIL_POSTGRES_SQL = stepDetail();
/** The PostgreSQL store's migration that adds the steps' trace columns (track, first token, payload...). */
export const RUN_STEP_TRACE_POSTGRES_SQL = stepTrace('postgres');
/** The PostgreSQL store's migration that adds the sessions tables. */
export const SESSIONS_POSTGRES_SQL = sessionTables('postgres');
/** The PostgreSQL store's migration that adds a run's model and the run it repeats. */
export const RUN_MODEL_AGAIN_OF_POSTGRES_SQL = runModelAndAgainOf('postgres');
/** The PostgreSQL store's migration that adds a step's guardrail verdicts. */
export const RUN_STEP_GUARDRAILS_POSTGRES_SQL = stepGuardrails();
/** The PostgreSQL store's migration that adds what a run was asked that its agent's run needs. */
export const RUN_OPTIONS_POSTGRES_SQL = runOptions('postgres');
/** The PostgreSQL store's migration that adds a model step's retries. */
export const RUN_STEP_RETRIES_POSTGRES_SQL = stepRetries();
