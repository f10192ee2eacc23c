/**
 * What guardrails cost the run route: `hubos serve` on the cold-start bench's one-agent config (two
 * model calls and one tool call per run, against the fake model), without guardrails and with the
 * built-ins `pii`, `max-length` and `blocked-terms` on every input and output (and `pii` on the
 * tool call), in alternating rounds of the same run. Prints each build's best req/s and server CPU
 * per run, and guarded/plain as a ratio (target: guardrails cost at most 5%).
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

const GUARDRAILS = `guardrails: {
    input: ['pii', { use: 'max-length', max: 20000 }, { use: 'blocked-terms', terms: ['forbidden', 'drop table'] }],
    output: ['pii', { use: 'max-length', max: 20000 }, { use: 'blocked-terms', terms: ['forbidden', 'drop table'] }],
    tool: ['pii'],
  },`;

const fake = await startFakeOpenAI();
const dir = mkdtempSync(join(tmpdir(), 'hubos-guardrails-bench-'));
copyFileSync(fixture('hubos.config.mjs'), join(dir, 'plain.config.mjs'));
const config = readFileSync(fixture('hubos.config.mjs'), 'utf8');
const guarded = config.replace('rateLimit: false },', `rateLimit: false },\n  ${GUARDRAILS}`);
if (guarded === config) throw new Error('hubos.config.mjs changed: update the guarded variant');
writeFileSync(join(dir, 'guarded.config.mjs'), guarded);

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

const results = {
  plain: [] as { rps: number; cpu: number }[],
  guarded: [] as { rps: number; cpu: number }[],
};
// Alternated, so a machine's drift over the run weighs on both alike.
for (let round = 0; round < ROUNDS; round++) {
  results.plain.push(await measure('plain.config.mjs'));
  results.guarded.push(await measure('guarded.config.mjs'));
}
const best = (rows: { rps: number; cpu: number }[]) => ({
  rps: Math.max(...rows.map((r) => r.rps)),
  cpu: Math.min(...rows.map((r) => r.cpu)),
});
const plain = best(results.plain);
const withGuardrails = best(results.guarded);
for (const [name, row] of [
  ['no guardrails', plain],
  ['pii + max-length + blocked-terms', withGuardrails],
] as const)
  console.log(
    `guardrails: ${name}: ${Math.round(row.rps)} req/s, server CPU ${Math.round(row.cpu)} µs per run`,
  );
console.log(
  `guardrails: guarded/plain throughput ${(withGuardrails.rps / plain.rps).toFixed(3)}x (target >= 0.95), ` +
    `+${Math.round(withGuardrails.cpu - plain.cpu)} µs CPU per run`,
);
await fake.close();
rmSync(dir, { recursive: true, force: true });
