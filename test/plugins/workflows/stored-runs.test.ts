/**
 * Workflow runs a store kept as key/value records (before they were runs of the engine) move into
 * the runs tables at the first boot: ended ones readable as before, a running one of a dead
 * instance resumed from its finished steps (`autoResume`), a queued one run; the records go.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../core/index.ts';
import { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { tempDir } from '../../helpers/run.ts';
import { bootWorkflows } from './helpers.ts';

let ran: string[] = [];

const job = defineWorkflow({
  name: 'job',
  steps: [
    { id: 'fetch', kind: 'function', run: () => ran.push('fetch') && 'rows' },
    {
      id: 'check',
      kind: 'branch',
      if: () => ran.push('if') > 0,
      steps: [{ id: 'work', kind: 'function', run: (s) => ran.push('work') && `${s.steps.fetch} worked` }],
    },
    { id: 'store', kind: 'function', run: (s) => ran.push('store') && { saved: s.steps.work } },
  ],
});

const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
const at = '2026-01-02T03:04:05.000Z';
const step = (key: string, output: unknown, kind = 'function') => ({
  key,
  id: key,
  kind,
  status: 'completed',
  output,
  attempts: 1,
  startedAt: at,
  finishedAt: at,
  durationMs: 0,
  usage,
});
const header = (runId: string, status: string, more: Record<string, unknown> = {}) => ({
  runId,
  workflow: 'job',
  owner: 'key:a',
  status,
  instance: 'gone-instance',
  input: { file: runId },
  decisions: {},
  createdAt: at,
  updatedAt: at,
  resumes: 0,
  ...more,
});

describe('workflow runs stored as key/value records', () => {
  it('move into the runs tables at first boot: ended, running (resumed) and queued ones', async () => {
    ran = [];
    const store = new SqliteStore(join(await tempDir('hubos-wf-stored-'), 'hubos.db'));
    const set = (namespace: string, key: string, value: unknown) => store.set(namespace, key, value as never);
    // Ended: completed, with its steps.
    await set('workflow-runs', 'done', header('done', 'completed', { output: 'old', finishedAt: at }));
    await set('workflow-steps', 'done/000000', step('fetch', 'rows'));
    // Running on an instance that died: fetch and the branch's answer were kept.
    await set('workflow-runs', 'half', header('half', 'running', { decisions: { 'check?': true } }));
    await set('workflow-steps', 'half/000000', step('fetch', 'kept rows'));
    await set('workflow-runs:active', 'half', { workflow: 'job', since: 1 });
    await set('workflow-leases', 'half', { holder: 'gone-instance', expiresAt: 1 });
    // Queued, never taken.
    await set('workflow-runs', 'waiting', header('waiting', 'queued', { owner: 'key:b' }));
    await set('workflow-runs:active', 'waiting', { workflow: 'job', since: 1 });

    const { kernel, workflows } = await bootWorkflows({ definitions: [job], autoResume: true }, undefined, {
      store,
      config: { bus: { leaseMs: 1000 } },
    });
    const w = workflows.get('job')!;
    expect(await w.getRun('done')).toMatchObject({
      status: 'completed',
      output: 'old',
      owner: 'key:a',
      input: { file: 'done' },
      steps: [{ id: 'fetch', output: 'rows' }],
    });
    await expect.poll(async () => (await w.getRun('half'))?.status, { timeout: 5_000 }).toBe('completed');
    expect(await w.getRun('half')).toMatchObject({
      output: { saved: 'kept rows worked' },
      resumes: 1,
      decisions: { 'check?': true },
      instance: kernel.instance.id,
    });
    await expect.poll(async () => (await w.getRun('waiting'))?.status, { timeout: 5_000 }).toBe('completed');
    expect(await w.getRun('waiting')).toMatchObject({ owner: 'key:b', output: { saved: 'rows worked' } });
    // `half` ran only what it had not finished, and took its branch's answer as kept.
    expect(ran.sort()).toEqual(['fetch', 'if', 'store', 'store', 'work', 'work']);
    for (const namespace of ['workflow-runs', 'workflow-steps', 'workflow-runs:active', 'workflow-leases'])
      expect(await store.list(namespace)).toEqual([]);
    const table = await kernel.runs.table();
    expect((await table.list({ agent: 'workflow:job', limit: 10 })).map((r) => r.id).sort()).toEqual([
      'done',
      'half',
      'waiting',
    ]);
  });
});
