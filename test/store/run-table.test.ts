// The runs tables on SQLite (a file, and the memory store's), and claims across processes that
// share one file: each queued run is taken exactly once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, SqliteStore } from '../../core/index.ts';
import { openRunTable } from '../../core/runs/open-run-table.ts';
import { runAt, runTableContract } from './run-table-contract.ts';
import { stepTraceContract } from './step-trace-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-runs-'));
const stores: SqliteStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
runTableContract('SQLite', async () => {
  const store = new SqliteStore(join(dir, `contract-${++files}.db`));
  stores.push(store);
  return openRunTable(store);
});
runTableContract('memory', () => openRunTable(new MemoryStore()));
stepTraceContract('SQLite', async () => {
  const store = new SqliteStore(join(dir, `trace-${++files}.db`));
  stores.push(store);
  return openRunTable(store);
});

describe('SQLite runs table shared by processes', () => {
  it('gives each of 300 queued runs to exactly one of 4 processes claiming at once', async () => {
    const path = join(dir, 'shared.db');
    const store = new SqliteStore(path);
    stores.push(store);
    const table = await openRunTable(store);
    const base = Date.now() - 60_000;
    for (let i = 0; i < 300; i++) await table.insert(runAt(base + i));
    const script = join(dir, 'claim.ts');
    const runs = join(process.cwd(), 'core/runs/open-run-table.ts');
    const sqlite = join(process.cwd(), 'core/store/sqlite.ts');
    writeFileSync(
      script,
      `import { SqliteStore } from ${JSON.stringify(sqlite)};
import { openRunTable } from ${JSON.stringify(runs)};
const store = new SqliteStore(${JSON.stringify(path)}, { busyTimeoutMs: 20000 });
const table = await openRunTable(store);
const mine = [];
for (;;) {
  const taken = await table.claimQueued(process.argv[2], 3, Date.now());
  if (taken.length === 0) break;
  mine.push(...taken.map((run) => run.id));
}
console.log(JSON.stringify(mine));
await store.close();
`,
    );
    const outputs = await Promise.all(
      ['p1', 'p2', 'p3', 'p4'].map(
        (name) =>
          new Promise<string[]>((resolve, reject) => {
            const child = spawn(process.execPath, [script, name], { stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            child.stdout.on('data', (chunk) => {
              out += chunk;
            });
            child.on('error', reject);
            child.on('exit', (code) =>
              code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`)),
            );
          }),
      ),
    );
    const all = outputs.flat();
    expect(all).toHaveLength(300);
    expect(new Set(all).size).toBe(300);
    const running = await table.list({ status: 'running', limit: 200 });
    expect(running.length).toBe(200);
    expect(await table.list({ status: 'queued', limit: 10 })).toEqual([]);
  }, 60_000);
});
