import { type ListTasksRequest, type ListTasksResponse, Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import {
  type ApprovalRecord,
  canSee,
  type RecordEntry,
  type RecordQuery,
  type RunRecord,
  type Store,
  type StoreValue,
} from '../../../core/index.ts';
import { isRecordText } from '../../../core/internal.ts';
import { type StoredTask, type TaskTables, taskTables } from '../a2a-task-records.ts';
import { asksNow } from './asks-now.ts';
import { callerOf } from './caller.ts';
import type { FollowedTasks } from './followed-tasks.ts';
import { settledTask } from './settle.ts';

/** States a task stays in: what its turn's end is stored as. */
const FINAL_STATES = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);
/** States of a task whose run may still go on: read against the run (and its approvals) as it stands. */
const OPEN_STATES = new Set<TaskState | undefined>([
  TaskState.TASK_STATE_SUBMITTED,
  TaskState.TASK_STATE_WORKING,
  TaskState.TASK_STATE_INPUT_REQUIRED,
]);

/** The open states as stored (their JSON names): what the tasks' state index files them under. */
const OPEN_STATE_NAMES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED'];

/** What the store reads besides tasks, to tell how an open task stands. */
export interface TaskStoreLookups {
  /** A run's record: a task whose run ended where nobody followed it is settled from it. */
  runRecord?: (runId: string) => Promise<RunRecord | undefined>;
  /** A run's approval requests still waiting: a task stored `input-required` is read as they stand. */
  pendingOf?: (runId: string) => Promise<ApprovalRecord[]>;
  /** Tasks a turn of this instance follows: they are never settled from their run meanwhile. */
  followed?: FollowedTasks;
}

/** Where a page of tasks/list starts: after this task, newest status first. */
interface Cursor {
  /** Its status's time (ms). */
  time: number;
  id: string;
}

/**
 * The SDK's TaskStore over the store's task tables, so tasks outlive the process (SQLite) and live
 * where sessions and runs do. Tasks are kept per agent (`<agent>/<taskId>`), as the spec's JSON
 * (`Task.toJSON`), which stays readable and stable across SDK versions, filed by the principal that
 * created it (`owner`), their status's time and state: another caller loads nothing and lists
 * nothing of it (an admin key sees all), so its answer is TaskNotFound.
 */
export class HubOSTaskStore implements TaskStore {
  readonly #store: Store;
  readonly #prefix: string;
  readonly #lookups: TaskStoreLookups;
  /** Turns waiting in `settled`, woken by the next save of their task. */
  readonly #saveWaiters = new Map<string, Set<() => void>>();

  constructor(store: Store, agentName: string, lookups: TaskStoreLookups = {}) {
    this.#store = store;
    this.#prefix = `${encodeURIComponent(agentName)}/`;
    this.#lookups = lookups;
  }

  /** The store's task tables, opened (and the tasks of an older release moved in) at the first use. */
  get #tables(): Promise<TaskTables> {
    return taskTables(this.#store);
  }

  /** Records which run serves the task's current turn. */
  async link(taskId: string, runId: string): Promise<void> {
    await (await this.#tables).runs.put(this.#prefix + taskId, { runId });
  }

  /**
   * Resolves once the stored task is in a state its turn ends in, reached at `since` or later (a
   * save here says so at once; another writer is looked for every 10 ms), or after `ms` (its store
   * may be failing, or nobody stores the turn's updates).
   */
  async settled(taskId: string, since: string, ms = 2_000): Promise<void> {
    for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
      const stored = await this.#get(taskId).catch(() => undefined);
      if (stored !== undefined && endsTurn(Task.fromJSON(stored.task), since)) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 10);
        const waiters = this.#saveWaiters.get(taskId) ?? new Set();
        this.#saveWaiters.set(taskId, waiters);
        waiters.add(done);
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
      });
    }
  }

  /** The run serving the task's current turn, if any. */
  async runOf(taskId: string): Promise<string | undefined> {
    if (!isTaskId(taskId)) return undefined;
    return (await (await this.#tables).runs.get(this.#prefix + taskId))?.runId;
  }

  async save(task: Task, context?: ServerCallContext): Promise<void> {
    const caller = callerOf(context);
    // A task keeps its first owner: an admin acting on another's task does not take it over.
    const owner = caller.admin ? ((await this.#read(task.id))?.owner ?? caller.id) : caller.id;
    const stored: StoredTask = { ...(owner ? { owner } : {}), task: Task.toJSON(task) as StoreValue };
    // Filed by owner, status time and state: lists, retention and erasure read those indexes.
    await (await this.#tables).tasks.put(this.#prefix + task.id, stored);
    const waiters = this.#saveWaiters.get(task.id);
    this.#saveWaiters.delete(task.id);
    for (const wake of waiters ?? []) wake();
  }

  async load(taskId: string, context?: ServerCallContext): Promise<Task | undefined> {
    const stored = await this.#read(taskId);
    if (!stored || !canSee(callerOf(context), stored.owner)) return undefined;
    return this.#asItStands(taskId, Task.fromJSON(stored.task));
  }

  /** The task whoever owns it: for the server's own bookkeeping (a cancel's context id), never a caller. */
  async loadAny(taskId: string): Promise<Task | undefined> {
    const stored = await this.#read(taskId);
    return stored && Task.fromJSON(stored.task);
  }

  async #read(taskId: string): Promise<StoredTask | undefined> {
    const stored = await this.#get(taskId);
    return stored && this.#settle(taskId, stored);
  }

  async #get(taskId: string): Promise<StoredTask | undefined> {
    // An id no task can have (too long, a NUL) is one the client made up: no such task.
    return isTaskId(taskId) ? (await this.#tables).tasks.get(this.#prefix + taskId) : undefined;
  }

  /**
   * A task still open whose run has ended (its instance died, or the instance following it did,
   * or it went on after an answer given elsewhere) takes the run's outcome, and keeps it: it never
   * stays `working` or `input-required` for ever. Not while a turn here follows it: that turn says.
   */
  async #settle(taskId: string, stored: StoredTask): Promise<StoredTask> {
    const { runRecord, followed } = this.#lookups;
    const task = Task.fromJSON(stored.task);
    if (!runRecord || !OPEN_STATES.has(task.status?.state) || followed?.has(taskId)) return stored;
    const runId = await this.runOf(taskId);
    const run = runId ? await runRecord(runId) : undefined;
    if (!run || run.status === 'running' || run.status === 'queued') return stored;
    const settled: StoredTask = { ...stored, task: Task.toJSON(settledTask(task, run)) as StoreValue };
    await (await this.#tables).tasks.put(this.#prefix + taskId, settled);
    return settled;
  }

  /**
   * A task waiting for input as it stands now, from its run's approvals: `input-required` with
   * what is asked while the run waits (whoever answered what meanwhile: the page, REST, another
   * instance), `working` once nothing is asked any more. Only read: the next turn stores it.
   */
  async #asItStands(taskId: string, task: Task): Promise<Task> {
    const { pendingOf } = this.#lookups;
    if (!pendingOf || task.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) return task;
    const runId = await this.runOf(taskId);
    if (!runId) return task;
    const pending = await pendingOf(runId).catch(() => undefined);
    return pending ? asksNow(task, pending) : task;
  }

  /**
   * Newest status first (then id), filtered, one page after the cursor: read a page at a time from
   * the tasks' index (the caller's own, or everyone's for an admin; of one state when asked), each
   * as it stands now, so a page reads about as many tasks as it returns. A context filter is checked
   * on the tasks read, so it and its total read further.
   */
  async list(params: ListTasksRequest, context?: ServerCallContext): Promise<ListTasksResponse> {
    const { tasks: table } = await this.#tables;
    const caller = callerOf(context);
    const pageSize = params.pageSize ?? 50;
    const cursor = params.pageToken ? decodeCursor(params.pageToken) : undefined;
    const since = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : Number.NaN;
    const state =
      params.status === undefined || params.status === TaskState.TASK_STATE_UNSPECIFIED
        ? undefined
        : taskStateToJSON(params.status);
    const filter: RecordQuery = {
      prefix: this.#prefix,
      ...(caller.admin ? {} : { owner: caller.id }),
      ...(Number.isNaN(since) ? {} : { since }),
    };
    // A task stored open may read as another state now (its run ended, its question was answered):
    // those are read too, and kept if they now are in the state asked (and then stored as they are).
    const mayChange = this.#lookups.runRecord || this.#lookups.pendingOf ? OPEN_STATE_NAMES : [];
    const tags = state ? [...new Set([state, ...mayChange])] : undefined;
    // One more than a page: whether a next page exists is known without a page of its own.
    // Each with where it stands in the index: the next page starts there, whatever the task now says
    // of its time (a task read as it stands may have changed since it was stored).
    const tasks: { task: Task; at: Cursor }[] = [];
    let after = cursor && { time: cursor.time, key: this.#prefix + cursor.id };
    while (tasks.length <= pageSize) {
      const page = await table.list({ ...filter, tag: tags, after, limit: Math.min(1000, pageSize + 1) });
      for (const entry of page.entries) {
        const task = await this.#listed(entry, caller, params.contextId, state);
        const at = { time: entry.time, id: entry.key.slice(this.#prefix.length) };
        if (task && tasks.length <= pageSize) tasks.push({ task, at });
      }
      if (!page.next) break;
      after = page.next;
    }
    const page = tasks.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map(({ task }) => (params.includeArtifacts ? task : { ...task, artifacts: [] })),
      nextPageToken: last && tasks.length > page.length ? encodeCursor(last.at) : '',
      pageSize,
      totalSize: params.contextId
        ? await this.#countInContext(filter, params.contextId, caller, state)
        : await table.count({ ...filter, tag: state }),
    };
  }

  /** A listed task as the caller may see it now, if it still passes the list's filters. */
  async #listed(
    entry: RecordEntry<StoredTask>,
    caller: ReturnType<typeof callerOf>,
    contextId: string | undefined,
    state: string | undefined,
  ): Promise<Task | undefined> {
    if (!canSee(caller, entry.value.owner)) return undefined;
    const taskId = entry.key.slice(this.#prefix.length);
    const stored = await this.#settle(taskId, entry.value);
    const task = await this.#asItStands(taskId, Task.fromJSON(stored.task));
    if (contextId && task.contextId !== contextId) return undefined;
    if (state && task.status?.state !== undefined && taskStateToJSON(task.status.state) !== state)
      return undefined;
    return task;
  }

  /**
   * How many of the filter's tasks are in the context (and the state, as stored): the index cannot
   * tell the context, so they are read.
   */
  async #countInContext(
    filter: RecordQuery,
    contextId: string,
    caller: ReturnType<typeof callerOf>,
    state: string | undefined,
  ): Promise<number> {
    const { tasks: table } = await this.#tables;
    let count = 0;
    for (let after: RecordQuery['after']; ; ) {
      const page = await table.list({ ...filter, ...(state ? { tag: state } : {}), after, limit: 1000 });
      for (const { value } of page.entries)
        if (canSee(caller, value.owner) && (value.task as { contextId?: unknown })?.contextId === contextId)
          count++;
      if (!page.next) return count;
      after = page.next;
    }
  }
}

function endsTurn(task: Task, since: string): boolean {
  const { state, timestamp } = task.status ?? {};
  return state !== undefined && FINAL_STATES.has(state) && (timestamp ?? '') >= since;
}

/**
 * Whether `id` can name a task here: what the SDK makes is a UUID; one a client sends must be at
 * most 256 bytes of text without NUL, so with the agent's prefix it is always a key the table takes.
 */
function isTaskId(id: string): boolean {
  return Buffer.byteLength(id) <= 256 && isRecordText(id);
}

// Opaque to clients; a cursor (not an offset) so tasks added meanwhile don't shift the pages.
function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(token: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<Cursor> & {
      timestamp?: unknown;
    };
    const { id } = cursor;
    // A token of a release before the tasks' table named the status's timestamp.
    const time = typeof cursor.timestamp === 'string' ? Date.parse(cursor.timestamp || '0') : cursor.time;
    if (typeof id === 'string' && isTaskId(id) && Number.isSafeInteger(time))
      return { time: time as number, id };
  } catch {
    // reported below
  }
  throw new RequestMalformedError('pageToken is not one this server issued');
}
