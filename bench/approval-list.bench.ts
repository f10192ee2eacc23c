/**
 * `GET /api/approvals` with many decided approvals kept: 10 pending ones among 1,000 and then
 * HUBOS_BENCH_APPROVALS (default 100,000) decided ones, on SQLite and PostgreSQL, through the
 * server's route (over a loopback socket). The store is filled as the release before the approvals
 * table kept them (key/value records), so the same file times that release too: this one moves
 * them into its table at first open (timed apart). Skips PostgreSQL when it is unreachable.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../core/store/postgres.ts';
import { SqliteStore } from '../core/store/sqlite.ts';
import type { Store, StoreWrite } from '../core/store/store.ts';
import { HubOS } from '../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../testing/index.ts';
import { CAVEAT, DATABASE_URL, dropSchema, servicesUnreachable, uniqueName } from './scale-services.ts';

const MANY = Number(process.env.HUBOS_BENCH_APPROVALS ?? 100_000);
const PENDING = 10;
/** Pages timed: up to this many, or as many as fit in a few seconds (at least 3). */
const SAMPLES = 200;
const BUDGET_MS = 4_000;

/** Approvals of `local` (the keyless server's caller), as the agent loop stores them. */
function approval(i: number, pending: boolean) {
  const at = Date.now() - 86_400_000 + i;
  return {
    runId: `run-${String(i).padStart(7, '0')}`,
    agent: 'helper',
    principal: 'local',
    step: 1,
    callId: 'call-1',
    tool: 'write',
    input: { text: `note ${i}` },
    permissions: ['fs:write'],
    requestedAt: new Date(at).toISOString(),
    expiresAt: new Date(at + (pending ? 2 * 86_400_000 : 300_000)).toISOString(),
    status: pending ? 'pending' : 'approved',
    ...(pending ? {} : { decidedAt: new Date(at + 1_000).toISOString() }),
  };
}

async function fill(store: Store, decided: number): Promise<void> {
  let writes: StoreWrite[] = [];
  for (let i = 0; i < decided + PENDING; i++) {
    const record = approval(i, i >= decided);
    writes.push({ namespace: 'approvals', key: `${record.runId}/call-1`, value: record });
    if (writes.length === 5_000 || i === decided + PENDING - 1) {
      await store.batch!(writes);
      writes = [];
    }
  }
}

async function measure(name: string, store: Store, decided: number): Promise<string> {
  await fill(store, decided);
  const kernel = await bootKernel({
    store,
    config: { agents: { helper: { model: new ScriptedModel([]) } } },
  });
  const hubos = new HubOS({ kernel, name: 'bench', port: 0, rateLimit: false });
  hubos.registerAgent('helper', kernel.agent('helper'));
  try {
    // Serving opens the store's tables (this release moves the kept records into them there).
    const opened = performance.now();
    const url = `${await hubos.serve()}/api/approvals`;
    const first = await fetch(url);
    const firstMs = performance.now() - opened;
    const body = (await first.json()) as { approvals: unknown[] };
    if (body.approvals.length !== PENDING) throw new Error(`${body.approvals.length} pending listed`);
    const took: number[] = [];
    for (
      const start = performance.now();
      took.length < SAMPLES && (took.length < 3 || performance.now() - start < BUDGET_MS);
    ) {
      const t = performance.now();
      const response = await fetch(url);
      await response.arrayBuffer();
      took.push(performance.now() - t);
    }
    took.sort((a, b) => a - b);
    const p50 = took[Math.floor(took.length / 2)]!;
    const p99 = took[Math.min(took.length - 1, Math.floor(took.length * 0.99))]!;
    return `  ${name}, ${decided.toLocaleString('en')} decided + ${PENDING} pending: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${took.length} pages; starting the server and the first page: ${firstMs.toFixed(0)} ms)`;
  } finally {
    await hubos.close();
    await kernel.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'hubos-approval-list-'));
const lines: string[] = [];
try {
  for (const decided of [1_000, MANY])
    lines.push(await measure('SQLite', new SqliteStore(join(dir, `approvals-${decided}.db`)), decided));
  if (await servicesUnreachable({ postgres: true })) lines.push('  PostgreSQL: unreachable, skipped');
  else
    for (const decided of [1_000, MANY]) {
      const schema = uniqueName('approvallist');
      try {
        lines.push(await measure('PostgreSQL', await PostgresStore.open(DATABASE_URL, { schema }), decided));
      } finally {
        await dropSchema(schema).catch(() => undefined);
      }
    }
  console.log(`Approval list (GET /api/approvals; caveat: ${CAVEAT}):\n${lines.join('\n')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
