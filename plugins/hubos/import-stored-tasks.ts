import { readEntries, type Store, type StoreValue, writeAll } from '../../core/index.ts';
import { isRecordText } from '../../core/internal.ts';
import type { StoredTask, TaskTables } from './a2a-task-records.ts';

/** Where HubOS kept tasks (`<agent>/<taskId>`) and their runs as key/value entries before their tables. */
const STORED_TASKS = 'hubos:a2a:tasks';
const STORED_TASK_RUNS = 'hubos:a2a:task-runs';
/** The index of those entries by last update, and its flag: nothing reads them any more. */
const OLD_INDEXES = ['hubos:a2a:task-activity', 'hubos:a2a:task-activity-indexed'];

const BATCH = 2_000;

/**
 * Moves the tasks a store kept as key/value entries into the task tables, each entry then
 * removed, and the old activity index with them. Several processes may do it at once: an insert
 * of a key already there changes nothing, so none is doubled, and a task saved since (in its
 * table) is never overwritten by its old entry.
 */
export async function importStoredTasks(store: Store, tables: TaskTables): Promise<number> {
  let moved = 0;
  const tasks = await readEntries(store, STORED_TASKS);
  for (let start = 0; start < tasks.length; start += BATCH) {
    const batch = tasks.slice(start, start + BATCH);
    // A key the tables refuse (too long to be `<agent>/<task id>`) is dropped, not kept failing every open.
    const valid = batch.filter(({ key }) => isRecordText(key));
    moved += await tables.tasks.insertMany(
      valid.map(({ key, value }) => ({ key, value: asStoredTask(value) })),
    );
    await writeAll(
      store,
      batch.map(({ key }) => ({ namespace: STORED_TASKS, key, value: undefined })),
    );
  }
  const runs = await readEntries(store, STORED_TASK_RUNS);
  for (let start = 0; start < runs.length; start += BATCH) {
    const batch = runs
      .slice(start, start + BATCH)
      .filter(({ key, value }) => isRecordText(key) && typeof value === 'string' && value);
    await tables.runs.insertMany(batch.map(({ key, value }) => ({ key, value: { runId: value as string } })));
    await writeAll(
      store,
      runs
        .slice(start, start + BATCH)
        .map(({ key }) => ({ namespace: STORED_TASK_RUNS, key, value: undefined })),
    );
  }
  for (const namespace of OLD_INDEXES) {
    const keys = await store.list(namespace);
    for (let start = 0; start < keys.length; start += BATCH)
      await writeAll(
        store,
        keys.slice(start, start + BATCH).map((key) => ({ namespace, key, value: undefined })),
      );
  }
  return moved;
}

/** An old entry as a stored task: one stored before owners were kept is its bare JSON, nobody's. */
function asStoredTask(json: StoreValue): StoredTask {
  if (typeof json === 'object' && json !== null && !Array.isArray(json) && json.task !== undefined)
    return {
      task: json.task,
      ...(typeof json.owner === 'string' && json.owner ? { owner: json.owner } : {}),
    };
  return { task: json };
}
