/**
 * Workflow overhead: a run of 20 function steps on SQLite (every finished step recorded, so a
 * restart can resume it) against the least any durable runner must do in the same run — the 20
 * function calls with one SQLite write each of what a step's record must hold (id, status,
 * output, start and end times). Prints runs per second and the ratio.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../core/index.ts';
import workflows, { defineWorkflow } from '../plugins/workflows/index.ts';
import { bootKernel } from '../testing/index.ts';
import { opsPerSecond, report } from './measure.ts';

const STEPS = 20;
const dir = await mkdtemp(join(tmpdir(), 'hubos-bench-wf-'));
const store = new SqliteStore(join(dir, 'bench.db'));
const steps = Array.from({ length: STEPS }, (_, i) => ({
  id: `s${i}`,
  kind: 'function' as const,
  run: (state: { steps: Readonly<Record<string, unknown>> }) => Number(state.steps[`s${i - 1}`] ?? 0) + 1,
}));
const kernel = await bootKernel({ store, plugins: [workflows([defineWorkflow({ name: 'chain', steps })])] });
const chain = kernel.service('workflows').get('chain')!;

let runs = 0;
const baseline = await opsPerSecond(async () => {
  let value = 0;
  runs++;
  for (let i = 0; i < STEPS; i++) {
    const startedAt = new Date().toISOString();
    value = steps[i]!.run({ steps: { [`s${i - 1}`]: value } });
    const record = {
      id: `s${i}`,
      status: 'completed',
      output: value,
      startedAt,
      finishedAt: new Date().toISOString(),
    };
    await store.set('bench', `${runs}/${String(i).padStart(6, '0')}`, record);
  }
}, 1_000);
const subject = await opsPerSecond(async () => {
  await chain.run({});
}, 1_000);
report(`workflow run of ${STEPS} durable steps`, subject, baseline, 'the steps with one store write each');
await kernel.close();
