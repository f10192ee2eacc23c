import { type ListTasksRequest, type ListTasksResponse, Task, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { TaskStore } from '@a2a-js/sdk/server';
import type { Store, StoreValue } from '../../../core/index.ts';

const NAMESPACE = 'hubos:a2a:tasks';

interface Cursor {
  timestamp: string;
  id: string;
}

/**
 * The SDK's TaskStore over the HubOS Store, so tasks outlive the process (SQLite) and live where
 * sessions and runs do. Tasks are kept per agent, as the spec's JSON (`Task.toJSON`), which stays
 * readable and stable across SDK versions. Every API key sees every task of the agent: HubOS keys
 * are not identities, so there is no owner to scope by.
 */
export class HubOSTaskStore implements TaskStore {
  readonly #store: Store;
  readonly #prefix: string;

  constructor(store: Store, agentName: string) {
    this.#store = store;
    this.#prefix = `${encodeURIComponent(agentName)}/`;
  }

  async save(task: Task): Promise<void> {
    await this.#store.set(NAMESPACE, this.#prefix + task.id, Task.toJSON(task) as StoreValue);
  }

  async load(taskId: string): Promise<Task | undefined> {
    const json = await this.#store.get(NAMESPACE, this.#prefix + taskId);
    return json === undefined ? undefined : Task.fromJSON(json);
  }

  /** Newest status first (then id), filtered, one page after the cursor. */
  async list(params: ListTasksRequest): Promise<ListTasksResponse> {
    const keys = await this.#store.list(NAMESPACE, this.#prefix);
    const loaded = await Promise.all(keys.map((key) => this.load(key.slice(this.#prefix.length))));
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
