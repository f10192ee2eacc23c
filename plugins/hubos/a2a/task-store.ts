import { type ListTasksRequest, type ListTasksResponse, Task, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import {
  type ApprovalRecord,
  canSee,
  collection,
  type RunRecord,
  type Store,
  type StoreCollection,
  type StoreValue,
} from '../../../core/index.ts';
import { TASK_RUNS_NAMESPACE, TASKS_NAMESPACE, taskActivity } from '../task-retention.ts';
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

/** What the store reads besides tasks, to tell how an open task stands. */
export interface TaskStoreLookups {
  /** A run's record: a task whose run ended where nobody followed it is settled from it. */
  runRecord?: (runId: string) => Promise<RunRecord | undefined>;
  /** A run's approval requests still waiting: a task stored `input-required` is read as they stand. */
  pendingOf?: (runId: string) => Promise<ApprovalRecord[]>;
  /** Tasks a turn of this instance follows: they are never settled from their run meanwhile. */
  followed?: FollowedTasks;
}

interface Cursor {
  timestamp: string;
  id: string;
}

/**
 * The SDK's TaskStore over the HubOS Store, so tasks outlive the process (SQLite) and live where
 * sessions and runs do. Tasks are kept per agent, as the spec's JSON (`Task.toJSON`), which stays
 * readable and stable across SDK versions, with the principal that created it (`owner`): another
 * caller loads nothing and lists nothing of it (an admin key sees all), so its answer is TaskNotFound.
 */
export class HubOSTaskStore implements TaskStore {
  readonly #tasks: StoreCollection<StoredTask | LegacyTask>;
  readonly #runs: StoreCollection<string>;
  readonly #prefix: string;
  readonly #lookups: TaskStoreLookups;
  readonly #store: Store;
  /** Turns waiting in `settled`, woken by the next save of their task. */
  readonly #saveWaiters = new Map<string, Set<() => void>>();

  constructor(store: Store, agentName: string, lookups: TaskStoreLookups = {}) {
    this.#tasks = collection<StoredTask | LegacyTask>(store, TASKS_NAMESPACE);
    this.#runs = collection<string>(store, TASK_RUNS_NAMESPACE);
    this.#prefix = `${encodeURIComponent(agentName)}/`;
    this.#lookups = lookups;
    this.#store = store;
  }

  /** Records which run serves the task's current turn. */
  async link(taskId: string, runId: string): Promise<void> {
    await this.#runs.set(this.#prefix + taskId, runId);
  }

  /**
   * Resolves once the stored task is in a state its turn ends in, reached at `since` or later (a
   * save here says so at once; another writer is looked for every 10 ms), or after `ms` (its store
   * may be failing, or nobody stores the turn's updates).
   */
  async settled(taskId: string, since: string, ms = 2_000): Promise<void> {
    for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
      const json = await this.#tasks.get(this.#prefix + taskId).catch(() => undefined);
      if (json !== undefined && endsTurn(Task.fromJSON(asStoredTask(json).task), since)) return;
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
    const runId = await this.#runs.get(this.#prefix + taskId);
    return typeof runId === 'string' ? runId : undefined;
  }

  async save(task: Task, context?: ServerCallContext): Promise<void> {
    const caller = callerOf(context);
    // A task keeps its first owner: an admin acting on another's task does not take it over.
    const owner = caller.admin ? ((await this.#read(task.id))?.owner ?? caller.id) : caller.id;
    const stored: StoredTask = { owner, task: Task.toJSON(task) as StoreValue };
    await this.#tasks.set(this.#prefix + task.id, stored);
    // Filed by when it was last saved, so retention finds idle tasks without reading them all.
    await taskActivity(this.#store).touch(this.#prefix + task.id);
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
    const json = await this.#tasks.get(this.#prefix + taskId);
    return json === undefined ? undefined : this.#settle(taskId, asStoredTask(json));
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
    await this.#tasks.set(this.#prefix + taskId, settled);
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

  /** Newest status first (then id), filtered, one page after the cursor. */
  async list(params: ListTasksRequest, context?: ServerCallContext): Promise<ListTasksResponse> {
    const keys = await this.#tasks.keys(this.#prefix);
    const loaded = await Promise.all(keys.map((key) => this.load(key.slice(this.#prefix.length), context)));
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
    const tasks = loaded
      .filter((task): task is Task => task !== undefined)
      .filter((task) => !params.contextId || task.contextId === params.contextId)
      .filter(
        (task) =>
          params.status === undefined ||
          params.status === TaskState.TASK_STATE_UNSPECIFIED ||
          task.status?.state === params.status,
      )
      .filter((task) => after === undefined || Date.parse(task.status?.timestamp ?? '') >= after)
      .sort((a, b) => compare(cursorOf(b), cursorOf(a)));
    const cursor = params.pageToken ? decodeCursor(params.pageToken) : undefined;
    const rest = cursor ? tasks.filter((task) => compare(cursorOf(task), cursor) < 0) : tasks;
    const pageSize = params.pageSize ?? 50;
    const page = rest.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((task) => (params.includeArtifacts ? task : { ...task, artifacts: [] })),
      nextPageToken: last && rest.length > page.length ? encodeCursor(cursorOf(last)) : '',
      pageSize,
      totalSize: tasks.length,
    };
  }
}

function endsTurn(task: Task, since: string): boolean {
  const { state, timestamp } = task.status ?? {};
  return state !== undefined && FINAL_STATES.has(state) && (timestamp ?? '') >= since;
}

interface StoredTask {
  owner?: string;
  task: StoreValue;
}

/** A task stored before owners were kept: its bare JSON. */
type LegacyTask = StoreValue;

/** A stored task as it is now: a legacy one is nobody's but the admins'. */
function asStoredTask(json: StoredTask | LegacyTask): StoredTask {
  if (typeof json === 'object' && json !== null && !Array.isArray(json) && json.task !== undefined)
    return { task: json.task, ...(typeof json.owner === 'string' ? { owner: json.owner } : {}) };
  // Without a `task`: not a StoredTask, whatever TypeScript cannot tell.
  return { task: json as LegacyTask };
}

function cursorOf(task: Task): Cursor {
  return { timestamp: task.status?.timestamp ?? '', id: task.id };
}

function compare(a: Cursor, b: Cursor): number {
  return a.timestamp === b.timestamp ? a.id.localeCompare(b.id) : a.timestamp.localeCompare(b.timestamp);
}

// Opaque to clients; a cursor (not an offset) so tasks added meanwhile don't shift the pages.
function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(token: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Cursor;
    if (typeof cursor.timestamp === 'string' && typeof cursor.id === 'string') return cursor;
  } catch {
    // reported below
  }
  throw new RequestMalformedError('pageToken is not one this server issued');
}
