/**
 * What the run route's throughput target means in CPU: the bare loop of the cold-start bench (B2:
 * two model calls with undici and the tool called by hand) is loaded alone, then with a fixed
 * amount of busy work added to each run, then `hubos serve` on the same one-agent config. Each
 * line gives req/s as a ratio to B2 in this run and the server's CPU per run (read from /proc).
 * The B2-with-work lines say how much CPU a run may cost beyond the bare loop at a given ratio,
 * on this machine: the budget a framework's records, checks and spans have to fit in. Two last
 * lines serve the same config with `runs.durability: 'exit'` (no journal: what resume costs per run,
 * by difference) and with the store in memory (the SQLite run records' share, by difference).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { autocannon } from './autocannon.ts';
import { startFakeOpenAI } from './cold-start/fake-openai.ts';
import { freePort } from './free-port.ts';

const WORK_US = [10, 20, 40, 80];
const SECONDS = Number(process.env.HUBOS_BENCH_SECONDS ?? 8);
const fixture = (name: string) => fileURLToPath(new URL(`./cold-start/${name}`, import.meta.url));
const hubosBin = fileURLToPath(new URL('../bin/hubos.ts', import.meta.url));
const body = JSON.stringify({ input: 'Call the echo tool with the text tick, then say done.' });

const fake = await startFakeOpenAI();
const dir = mkdtempSync(join(tmpdir(), 'hubos-budget-'));
copyFileSync(fixture('hubos.config.mjs'), join(dir, 'hubos.config.mjs'));
// The same config with the store in memory: what the SQLite run records cost, by difference.
const config = readFileSync(fixture('hubos.config.mjs'), 'utf8');
const inMemory = config.replace('rateLimit: false },', "rateLimit: false },\n  store: { driver: 'memory' },");
if (inMemory === config) throw new Error('hubos.config.mjs changed: update the memory-store variant');
writeFileSync(join(dir, 'memory.config.mjs'), inMemory);
// The same config without the journal: what keeping runs resumable costs, by difference.
const noJournal = config.replace(
  'rateLimit: false },',
  "rateLimit: false },\n  runs: { durability: 'exit' },",
);
writeFileSync(join(dir, 'exit.config.mjs'), noJournal);

/** User + system CPU of a process so far, in µs. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // clock ticks of 1/100 s
}

async function started(args: string[], url: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, ...env, FAKE_URL: fake.url, NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    const res = await post(url).catch(() => undefined);
    if (res?.ok) return child;
    await sleep(20);
  }
  child.kill('SIGKILL');
  throw new Error(`${args.join(' ')} gave no answer in 30 s`);
}

const post = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** 2 s of warm-up, then the measured load with the server's CPU read around it. */
async function measure(name: string, args: string[], route: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${route}`;
  const child = await started(args, url, { ...env, PORT: String(port) });
  try {
    await autocannon([url], { connections: 10, seconds: 2, body });
    const before = cpuMicros(child.pid!);
    const result = await autocannon([url], { connections: 10, seconds: SECONDS, body });
    const cpu = (cpuMicros(child.pid!) - before) / Math.max(1, result.requests);
    if (result.errors > 0) throw new Error(`${name}: ${result.errors} failed requests`);
    return { name, rps: result.rps, p50: result.p50, cpu };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const b2Args = [fixture('baseline-loop.mjs')];
const rows = [await measure('B2 bare loop', b2Args, '/run')];
for (const us of WORK_US)
  rows.push(await measure(`B2 + ${us} µs of work per run`, b2Args, '/run', { BENCH_WORK_US: String(us) }));
const route = '/api/agents/bench/run';
rows.push(await measure('hubos serve', [hubosBin, 'serve', '--config', 'hubos.config.mjs'], route));
rows.push(
  await measure(
    "hubos serve, runs.durability 'exit'",
    [hubosBin, 'serve', '--config', 'exit.config.mjs'],
    route,
  ),
);
rows.push(
  await measure('hubos serve, store in memory', [hubosBin, 'serve', '--config', 'memory.config.mjs'], route),
);

const b2 = rows[0]!;
for (const row of rows)
  console.log(
    `run route budget: ${row.name}: ${Math.round(row.rps)} req/s (${(row.rps / b2.rps).toFixed(2)}x B2), ` +
      `p50 ${row.p50} ms, server CPU ${Math.round(row.cpu)} µs per run (+${Math.round(row.cpu - b2.cpu)} µs)`,
  );
await fake.close();
rmSync(dir, { recursive: true, force: true });
