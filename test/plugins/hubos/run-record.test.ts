import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../core/index.ts';
import {
  ACTIVE_NAMESPACE,
  fileEnded,
  type RunRecord,
  readRun,
  writeActive,
} from '../../../plugins/hubos/run-record.ts';

const running: RunRecord = { id: 'r1', agent: 'a', status: 'running', createdAt: new Date(0).toISOString() };

describe('readRun', () => {
  it('finds a run that ends between its reads (filed while it looked among the ended ones)', async () => {
    const store = new MemoryStore();
    await writeActive(store, running);
    const get = store.get.bind(store);
    let filed = false;
    // The run ends on another instance right after the first read found no ended record.
    store.get = (async (namespace: string, key: string) => {
      const value = await get(namespace, key);
      if (!filed) {
        filed = true;
        await fileEnded(store, { ...running, status: 'cancelled' });
      }
      return value;
    }) as typeof store.get;
    expect(await readRun(store, 'r1')).toMatchObject({ id: 'r1', status: 'cancelled' });
    expect(await store.get(ACTIVE_NAMESPACE, 'r1')).toBeUndefined();
  });

  it('reads an active run, an ended one, and nothing for an unknown id', async () => {
    const store = new MemoryStore();
    await writeActive(store, running);
    expect(await readRun(store, 'r1')).toMatchObject({ status: 'running' });
    await fileEnded(store, { ...running, status: 'completed' });
    expect(await readRun(store, 'r1')).toMatchObject({ status: 'completed' });
    expect(await readRun(store, 'nope')).toBeUndefined();
  });
});
