/**
 * What recording a run's steps costs the run route: `hubos serve` on the cold-start bench's
 * one-agent config (two model calls and one tool call per run, against the fake model), with
 * `runs.recordSteps` on (the default) and off, in alternating rounds of the same run. Prints each
 * mode's best req/s and server CPU per run, and on/off as a ratio (target: on costs at most 10%).
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

const SECONDS = Number(process.env.HUBOS_BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.HUBOS_BENCH_ROUNDS ?? 3);
const fixture = (name: string) => fileURLToPath(new URL(`./cold-start/${name}`, import.meta.url));
const hubosBin = fileURLToPath(new URL('../bin/hubos.ts', import.meta.url));
const body = JSON.stringify({ input: 'Call the echo tool with the text tick, then say done.' });
const route = '/api/agents/bench/run';

const fake = await startFakeOpenAI();
const dir = mkdtempSync(join(tmpdir(), 'hubos-step-recording-'));
copyFileSync(fixture('hubos.config.mjs'), join(dir, 'on.config.mjs'));
const config = readFileSync(fixture('hubos.config.mjs'), 'utf8');
const off = config.replace('rateLimit: false },', 'rateLimit: false },\n  runs: { recordSteps: false },');
if (off === config) throw new Error('hubos.config.mjs changed: update the recording-off variant');
writeFileSync(join(dir, 'off.config.mjs'), off);

/** User + system CPU of a process so far, in µs. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // clock ticks of 1/100 s
}

const post = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

async function started(file: string, url: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [hubosBin, 'serve', '--config', file], {
    cwd: dir,
    env: { ...process.env, FAKE_URL: fake.url, NODE_ENV: 'production', PORT: String(port) },
    stdio: 'ignore',
  });
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if (child.exitCode !== null)
      throw new Error(`hubos serve --config ${file} exited with ${child.exitCode}`);
    const res = await post(url).catch(() => undefined);
    if (res?.ok) return child;
    await sleep(20);
  }
  child.kill('SIGKILL');
  throw new Error(`hubos serve --config ${file} gave no answer in 30 s`);
}

/** 2 s of warm-up, then the measured load with the server's CPU read around it. */
async function measure(file: string): Promise<{ rps: number; cpu: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${route}`;
  const child = await started(file, url, port);
  try {
    await autocannon([url], { connections: 10, seconds: 2, body });
    const before = cpuMicros(child.pid!);
    const result = await autocannon([url], { connections: 10, seconds: SECONDS, body });
    if (result.errors > 0) throw new Error(`${file}: ${result.errors} failed requests`);
    return { rps: result.rps, cpu: (cpuMicros(child.pid!) - before) / Math.max(1, result.requests) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const results = { on: [] as { rps: number; cpu: number }[], off: [] as { rps: number; cpu: number }[] };
// Alternated, so a machine's drift over the run weighs on both alike.
for (let round = 0; round < ROUNDS; round++) {
  results.off.push(await measure('off.config.mjs'));
  results.on.push(await measure('on.config.mjs'));
}
const best = (rows: { rps: number; cpu: number }[]) => ({
  rps: Math.max(...rows.map((r) => r.rps)),
  cpu: Math.min(...rows.map((r) => r.cpu)),
});
const on = best(results.on);
const offBest = best(results.off);
for (const [name, row] of [
  ['recordSteps off', offBest],
  ['recordSteps on', on],
] as const)
  console.log(
    `step recording: ${name}: ${Math.round(row.rps)} req/s, server CPU ${Math.round(row.cpu)} µs per run`,
  );
console.log(
  `step recording: on/off throughput ${(on.rps / offBest.rps).toFixed(3)}x (target >= 0.90), ` +
    `+${Math.round(on.cpu - offBest.cpu)} µs CPU per run`,
);
await fake.close();
rmSync(dir, { recursive: true, force: true });
