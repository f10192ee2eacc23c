import type { Message, Usage } from '../agent/messages.ts';
import type { GuardrailVerdictRecord } from '../guardrails/guardrail.ts';
import type { RunRecord, RunState, RunSurface } from './run-record.ts';
import type { UsageQuery, UsageRow } from './run-usage-query.ts';
import { previewOf, STEP_PAYLOAD } from './step-payload.ts';

/**
 * One finished step of a run, with its timing and usage: an agent's model call or tool call, the
 * summary of its older turns before a model call (`compaction`), or a workflow's step (`step`) or
 * the answer of one of its conditions (`decision`).
 */
export interface RunStep {
  runId: string;
  /** Its place among the run's recorded steps, from 1. */
  seq: number;
  kind: 'model' | 'tool' | 'step' | 'decision' | 'compaction';
  /** The model's id (a compaction's: the summarizing model's), the tool's name, or a workflow step's (or condition's) key. */
  name: string;
  /** The agent loop's step it belongs to (a workflow's step: how many times the run had been resumed). */
  step: number;
  /** A tool call's id. */
  callId?: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  status: 'ok' | 'error';
  /** A model call's tokens. */
  usage?: Usage;
  /** Why a model call stopped (`stop`, `tool-calls`, ...). */
  finishReason?: string;
  error?: { code: string; message: string };
  /**
   * What a workflow's step keeps to be replayed by a resumed run (its record, with its output), as
   * JSON; a compaction's `{ tokensBefore, tokensAfter, through }`.
   */
  detail?: unknown;
  /** The run a step belongs to when it is not this run's own loop: a sub-agent task's or a Stars member's. */
  track?: StepTrack;
  /** A model call: ms from its start to its first streamed part. */
  firstTokenMs?: number;
  /** A tool call: what the permission policy said (absent: no rule matched, or the call never reached it). */
  permission?: { decision: 'allow' | 'ask' | 'deny'; rule?: string };
  /** A tool call that waited for a human: the approval or question, who answered, when. */
  approval?: StepApproval;
  /** The start of the step's payload (at most 240 characters each): a tool's input and output; a model call's answer. */
  preview?: { input?: string; output?: string };
  /** Size in bytes of the full payload (`GET /runs/:id/steps/:seq` answers it). */
  payloadBytes?: number;
  /**
   * What guardrails said in it: a model step's of its answer (the run's first also of the user's
   * message), a tool step's of its arguments and output.
   */
  guardrails?: GuardrailVerdictRecord[];
  /** A model call's retries and failovers, in order: why each attempt failed and what came next. */
  retries?: StepRetry[];
  /**
   * The step's full payload as JSON text, on its way to the table (never listed, never in JSON).
   * @internal
   */
  [STEP_PAYLOAD]?: string;
}

/** One retry or failover of a model call (a `model-retry` event, without the run's ids). */
export interface StepRetry {
  model: string;
  attempt: number;
  reason: { code: string; message: string; status?: number };
  delayMs: number;
  next: string;
  at: string;
}

/** Whose steps these are, when not the run's own loop's. */
export interface StepTrack {
  /** The run the step was part of (the sub-agent's, the member's). */
  runId: string;
  kind: 'subagent' | 'member';
  /** `task <type>: <the first 60 characters of its description>`, or `<member> (<role>)`. */
  label: string;
  /** The calling run's `task` call that started it, when known. */
  callId?: string;
  /** For a nested sub-agent: the run whose step started it. */
  parentRunId?: string;
}

/** How a human answered a tool call's approval request (or a tool's question). */
export interface StepApproval {
  approved: boolean;
  /** Who decided (a principal's id), when known. */
  by?: string;
  at: string;
  /** It was a tool's question (`tc.elicit`), not a permission. */
  question?: boolean;
  reason?: string;
}

/**
 * What a run's model or tool calls added to its conversation, kept as soon as their outcome is
 * known: another instance resumes the run from these if its instance dies.
 */
export interface JournalEntry {
  runId: string;
  /** Its place in the run's journal, from 1. */
  seq: number;
  /** The agent loop's step the messages belong to. */
  step: number;
  messages: Message[];
}

/** Which runs to list: every filter optional, newest first, a page at a time. */
export interface RunQuery {
  /** Only this principal's runs (undefined: everyone's, for an admin). */
  owner?: string | undefined;
  agent?: string | undefined;
  status?: RunState | undefined;
  via?: RunSurface | undefined;
  sessionId?: string | undefined;
  /** Runs created at or after this time (ms since the epoch). */
  since?: number | undefined;
  /** Runs created before this time (ms since the epoch). */
  until?: number | undefined;
  /** At most this many (1–200). */
  limit: number;
  /** Runs older than this id (the last id of the previous page). */
  before?: string | undefined;
  /** Runs whose input holds this text, whatever its case (1–200 characters, taken literally). */
  q?: string | undefined;
}

/** Where a run must still be for an end to be written: its status, and the instance holding it. */
export interface RunClaim {
  status: RunState;
  instance?: string | undefined;
}

/**
 * The runs and their steps, in tables of their own (SQLite or PostgreSQL). Every write that
 * changes who holds a run names where the run must still be, so of two instances only one wins.
 */
export interface RunTable {
  /** Stores a new run; false when a run of that id exists (which is left as it is). */
  insert(record: RunRecord): Promise<boolean>;
  get(id: string): Promise<RunRecord | undefined>;
  /** The steps count of a run `instance` is running. */
  progress(id: string, instance: string, steps: number, at: number): Promise<void>;
  /** Writes `record` (an end, or a takeover) if the run is still as `from` says; false when it was not. */
  replace(record: RunRecord, from: RunClaim): Promise<boolean>;
  /**
   * Writes a run's end in one write, all or nothing: its final `record` if the run is still as
   * `from` says, its `steps` not yet written, and drops its journal (nothing is left to resume);
   * false, writing nothing, when the run was not as `from` says (another instance took it over).
   * True, writing nothing more, when the run already ended as `record` says (the same end told again).
   */
  finish(record: RunRecord, from: RunClaim, steps: readonly RunStep[]): Promise<boolean>;
  /** Takes up to `limit` queued runs, oldest first, for `instance`: each is taken by one instance only. */
  claimQueued(instance: string, limit: number, at: number): Promise<RunRecord[]>;
  /** Queued and running runs held by instances other than `instance`, with who holds them. */
  activeElsewhere(instance: string): Promise<RunRecord[]>;
  /** Ids of `instance`'s running runs that someone asked to cancel. */
  cancelRequested(instance: string): Promise<string[]>;
  /** Asks the instance running `id` to cancel it (it reads the flag); false when it is not running. */
  requestCancel(id: string): Promise<boolean>;
  list(query: RunQuery): Promise<RunRecord[]>;
  /** Deletes a run and its steps; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Ids of ended runs older than run `before` (of `owner` only, when given), oldest first, at most `limit`. */
  endedBefore(before: string, limit: number, owner?: string): Promise<string[]>;
  /** The id of the run with `rank` newer runs than it (0: the newest); undefined when there are fewer. */
  idAtRank(rank: number): Promise<string | undefined>;
  /** Deletes these runs and their steps; how many runs went. */
  deleteMany(ids: readonly string[]): Promise<number>;
  /**
   * Writes steps (of one run when `holder` is given); a step already there stays as it is. With
   * `holder`, only while the run is running on that instance: false when it was taken over.
   */
  addSteps(steps: readonly RunStep[], holder?: string): Promise<boolean>;
  /**
   * Keeps one step of a run `instance` is running, numbered after the run's last (its `seq` is
   * ignored), durable when it resolves; false, writing nothing, when the run is not running there.
   */
  keepStep(step: RunStep, instance: string): Promise<boolean>;
  /** Ids of the runs `instance` is running, as the table says (a run taken over is not among them). */
  runningOn(instance: string): Promise<string[]>;
  steps(runId: string): Promise<RunStep[]>;
  /** One step of a run with its payload's JSON text (null when it kept none); undefined when there is none. */
  step(runId: string, seq: number): Promise<StoredStep | undefined>;
  /**
   * The tokens of the model calls of runs created in [query.from, query.to), summed per bucket,
   * group and model (one statement), in that order.
   */
  usage(query: UsageQuery): Promise<UsageRow[]>;
  /**
   * Keeps an entry of a run's journal (resolves once durable), only while the run is running on
   * `holder`: false when another instance has taken it over (nothing written; the run must stop).
   */
  journal(entry: JournalEntry, holder: string): Promise<boolean>;
  /** A run's journal, in order. */
  readJournal(runId: string): Promise<JournalEntry[]>;
  /** Drops a run's journal (it ended: nothing is left to resume). */
  dropJournal(runId: string): Promise<void>;
}

/** A run row as both dialects hold it: times in ms, JSON as text. */
export interface RunRow {
  id: string;
  agent: string;
  owner: string;
  session_id: string | null;
  via: string;
  status: string;
  instance: string | null;
  steps: number | string;
  input: string | null;
  result: string | null;
  error: string | null;
  created_at: number | string;
  started_at: number | string | null;
  updated_at: number | string | null;
  finished_at: number | string | null;
  resumable: number | string;
  resumes: number | string;
  model: string | null;
  again_of: string | null;
  options: string | null;
}

/** A step as read alone: its row and its payload's JSON text. */
export interface StoredStep {
  step: RunStep;
  payload: string | null;
}

export interface PayloadRow {
  payload: string | null;
}

export interface StepRow {
  run_id: string;
  seq: number | string;
  kind: string;
  name: string;
  step: number | string;
  call_id: string | null;
  started_at: number | string;
  finished_at: number | string;
  status: string;
  usage: string | null;
  finish_reason: string | null;
  error: string | null;
  detail: string | null;
  track: string | null;
  first_token_ms: number | string | null;
  permission: string | null;
  approval: string | null;
  preview: string | null;
  payload_bytes: number | string | null;
  guardrails: string | null;
  retries: string | null;
}

const iso = (ms: number | string | null): string | undefined =>
  ms === null ? undefined : new Date(Number(ms)).toISOString();
const ms = (text: string | undefined): number | null => (text === undefined ? null : Date.parse(text));

/** The row's values in column order, for an insert. */
export function toRow(record: RunRecord): unknown[] {
  return [
    record.id,
    record.agent,
    record.owner ?? '',
    record.sessionId ?? null,
    record.via ?? 'rest',
    record.status,
    record.instance ?? null,
    record.steps ?? 0,
    record.input ?? null,
    record.result === undefined ? null : JSON.stringify(record.result),
    record.error === undefined ? null : JSON.stringify(record.error),
    Date.parse(record.createdAt),
    ms(record.startedAt),
    ms(record.updatedAt),
    ms(record.finishedAt),
    record.resumable ? 1 : 0,
    record.resumes ?? 0,
    record.model ?? null,
    record.againOf ?? null,
    record.options === undefined ? null : JSON.stringify(record.options),
  ];
}

/**
 * The values of a fenced write of a run's record: its new state (status, instance, steps, result,
 * error, started, updated, finished, resumes), then where it must still be (id, status, instance).
 */
export function replaceValues(record: RunRecord, from: RunClaim): unknown[] {
  const row = toRow(record);
  return [
    record.status,
    record.instance ?? null,
    record.steps ?? 0,
    row[9],
    row[10],
    row[12],
    row[13],
    row[14],
    record.resumes ?? 0,
    record.id,
    from.status,
    from.instance ?? null,
  ];
}

export const RUN_COLUMNS =
  'id, agent, owner, session_id, via, status, instance, steps, input, result, error, created_at, started_at, updated_at, finished_at, resumable, resumes, model, again_of, options';

/** The columns of a list: a run's result (its transcript) is read by id, not in lists. */
export const RUN_LIST_COLUMNS = RUN_COLUMNS.replace('result', 'NULL AS result');

export function fromRow(row: RunRow): RunRecord {
  const record: RunRecord = {
    id: row.id,
    agent: row.agent,
    status: row.status as RunState,
    via: row.via as RunSurface,
    steps: Number(row.steps),
    createdAt: iso(row.created_at)!,
  };
  if (row.owner !== '') record.owner = row.owner;
  if (row.session_id !== null) record.sessionId = row.session_id;
  if (row.instance !== null) record.instance = row.instance;
  if (row.input !== null) record.input = row.input;
  if (row.started_at !== null) record.startedAt = iso(row.started_at)!;
  if (row.updated_at !== null) record.updatedAt = iso(row.updated_at)!;
  if (row.finished_at !== null) record.finishedAt = iso(row.finished_at)!;
  if (row.result !== null) record.result = JSON.parse(row.result);
  if (row.error !== null) record.error = JSON.parse(row.error);
  if (Number(row.resumable) === 1) record.resumable = true;
  if (Number(row.resumes) > 0) record.resumes = Number(row.resumes);
  if (row.model !== null) record.model = row.model;
  if (row.again_of !== null) record.againOf = row.again_of;
  if (row.options !== null) record.options = JSON.parse(row.options);
  return record;
}

export function stepToRow(step: RunStep): unknown[] {
  return [
    step.runId,
    step.seq,
    step.kind,
    noNul(step.name),
    step.step,
    step.callId === undefined ? null : noNul(step.callId),
    Date.parse(step.startedAt),
    Date.parse(step.finishedAt),
    step.status,
    step.usage === undefined ? null : JSON.stringify(step.usage),
    step.finishReason === undefined ? null : noNul(step.finishReason),
    step.error === undefined ? null : JSON.stringify(step.error),
    step.detail === undefined ? null : JSON.stringify(step.detail),
    json(step.track),
    step.firstTokenMs ?? null,
    json(step.permission),
    json(step.approval),
    json(step.preview),
    step.payloadBytes ?? null,
    json(step.guardrails),
    json(step.retries),
    step[STEP_PAYLOAD] ?? null,
  ];
}

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

// A step's name, call id and finish reason come from the model's answer, and PostgreSQL's text
// cannot hold a NUL: one would refuse the run's whole end. (JSON columns escape it.)
const noNul = (text: string): string => text.replaceAll('\u0000', '\uFFFD');

export interface JournalRow {
  run_id: string;
  seq: number | string;
  step: number | string;
  messages: string;
}

export function journalFromRow(row: JournalRow): JournalEntry {
  return {
    runId: row.run_id,
    seq: Number(row.seq),
    step: Number(row.step),
    messages: JSON.parse(row.messages) as Message[],
  };
}

/** The columns a list of steps reads: all but the payload, which is read one step at a time. */
export const STEP_COLUMNS =
  'run_id, seq, kind, name, step, call_id, started_at, finished_at, status, usage, finish_reason, error, detail, track, first_token_ms, permission, approval, preview, payload_bytes, guardrails, retries';
/** The columns a step is written with (`stepToRow`'s order): the listed ones and the payload. */
export const STEP_WRITE_COLUMNS = `${STEP_COLUMNS}, payload`;
/** How many values `stepToRow` gives. */
export const STEP_WRITE_COUNT = STEP_WRITE_COLUMNS.split(', ').length;

export function stepFromRow(row: StepRow): RunStep {
  const startedAt = Number(row.started_at);
  const finishedAt = Number(row.finished_at);
  const step: RunStep = {
    runId: row.run_id,
    seq: Number(row.seq),
    kind: row.kind as RunStep['kind'],
    name: row.name,
    step: Number(row.step),
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: new Date(finishedAt).toISOString(),
    durationMs: finishedAt - startedAt,
    status: row.status as RunStep['status'],
  };
  if (row.call_id !== null) step.callId = row.call_id;
  if (row.usage !== null) step.usage = JSON.parse(row.usage);
  if (row.finish_reason !== null) step.finishReason = row.finish_reason;
  if (row.error !== null) step.error = JSON.parse(row.error);
  if (row.detail !== null) step.detail = JSON.parse(row.detail);
  if (row.track !== null) step.track = JSON.parse(row.track);
  if (row.first_token_ms !== null) step.firstTokenMs = Number(row.first_token_ms);
  if (row.permission !== null) step.permission = JSON.parse(row.permission);
  if (row.approval !== null) step.approval = JSON.parse(row.approval);
  if (row.preview !== null) step.preview = JSON.parse(row.preview);
  else if (step.detail !== undefined) {
    // Workflow steps keep their record in `detail`: their preview is read from it.
    const output = previewOf(workflowOutput(step));
    if (output !== undefined) step.preview = { output };
  }
  if (row.payload_bytes !== null) step.payloadBytes = Number(row.payload_bytes);
  if (row.guardrails !== null) step.guardrails = JSON.parse(row.guardrails);
  if (row.retries !== null) step.retries = JSON.parse(row.retries);
  return step;
}

/** A workflow step's output, or a condition's answer: what its record keeps. */
export function workflowOutput(step: RunStep): unknown {
  if (step.kind === 'decision') return step.detail;
  const detail = step.detail as { output?: unknown } | null;
  return typeof detail === 'object' && detail !== null ? detail.output : undefined;
}

/**
 * The lowest run id made at `time`: ids are UUIDv7, their first 48 bits the time, so a time range
 * is an id range on the primary key.
 */
export function idAt(time: number): string {
  const hex = Math.max(0, Math.floor(time)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}`;
}

/**
 * The WHERE clause of a list query, with `?` placeholders, and its values. The text search `q` is a
 * parameter, never part of the SQL: a LIKE (PostgreSQL: ILIKE) pattern with `%`, `_` and `\` escaped,
 * so every character of it is looked for as it is.
 */
export function listFilter(
  query: RunQuery,
  dialect: 'sqlite' | 'postgres' = 'sqlite',
): { where: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    parts.push(sql);
    values.push(value);
  };
  if (query.owner !== undefined) add('owner = ?', query.owner);
  if (query.agent !== undefined) add('agent = ?', query.agent);
  if (query.status !== undefined) add('status = ?', query.status);
  if (query.via !== undefined) add('via = ?', query.via);
  if (query.sessionId !== undefined) add('session_id = ?', query.sessionId);
  if (query.since !== undefined) add('id >= ?', idAt(query.since));
  if (query.until !== undefined) add('id < ?', idAt(query.until));
  if (query.before !== undefined) add('id < ?', query.before);
  // SQLite's LIKE ignores the case of ASCII letters; PostgreSQL's ILIKE of every letter. Neither has
  // an index to use: a search reads the runs the other filters leave, newest first, until the page is
  // full (a trigram index would, at the cost of every run's insert: see the runs-list benchmark).
  if (query.q !== undefined)
    add(
      `input ${dialect === 'sqlite' ? 'LIKE' : 'ILIKE'} ? ESCAPE '\\'`,
      `%${query.q.replace(/[\\%_]/g, '\\$&')}%`,
    );
  return { where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', values };
}
