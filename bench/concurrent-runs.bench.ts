/**
 * Many runs at once on one instance: RUNS runs (HUBOS_BENCH_RUNS, default 5,000) are started
 * together against a model that answers each call in 2 s (one tool call, then the answer: an ideal
 * run takes 4 s), on B2, the bare loop of the cold-start bench (Hono + undici, the tool called by
 * hand), and on `hubos serve` with the same one-agent config (SQLite store), answered as JSON and
 * as SSE. Each server is its own process, the load another (bench/concurrent-runs/load.ts), the fake
 * model this one. Per side: memory per in-flight run (the peak during the load, RSS and V8 heap,
 * minus the idle figure after a GC, divided by RUNS; and the heap the runs hold, after a GC with
 * every run in flight: a pause each side takes), the median and p99 run, GET /health's p99 timed
 * every 50 ms during the load (B2 has a trivial one), the server's own event-loop delay (p99
 * and max, from perf_hooks in the server), and its CPU per run (/proc). The machine's load moves
 * the run times and /health most: the CPU per run and the memory are the steadier figures.
 * The sides alternate for ROUNDS rounds (HUBOS_BENCH_ROUNDS, default 2); ratios are to B2 of the
 * same round, and each figure is printed as the range over rounds. For profiling:
 * HUBOS_BENCH_SIDES=sse (or json, b2; comma-separated) runs only those sides, and
 * HUBOS_BENCH_HUBOS_ARGS='--cpu-prof' gives node options to the hubos servers (run in a temp folder:
 * give --cpu-prof-dir an absolute path).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAI } from './cold-start/fake-openai.ts';
import { freePort } from './free-port.ts';

const RUNS = Number(process.env.HUBOS_BENCH_RUNS ?? 5_000);
const ROUNDS = Number(process.env.HUBOS_BENCH_ROUNDS ?? 2);
const MODEL_DELAY_MS = 2_000;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const probe = here('./concurrent-runs/memory-probe.mjs');

const fake = await startFakeOpenAI({ delayMs: MODEL_DELAY_MS });
const dir = mkdtempSync(join(tmpdir(), 'hubos-concurrent-'));
copyFileSync(here('./cold-start/hubos.config.mjs'), join(dir, 'hubos.config.mjs'));

interface Side {
  name: string;
  args: string[];
  route: string;
  health: string;
  stream?: boolean;
  env?: Record<string, string>;
}
const hubosArgs = [here('../bin/hubos.ts'), 'serve', '--config', 'hubos.config.mjs'];
const allSides: Side[] = [
  {
    name: 'B2 bare loop',
    args: [here('./cold-start/baseline-loop.mjs')],
    route: '/run',
    health: '/health',
    // Uncapped, like the global fetch HubOS's provider uses: 64 connections would queue the calls.
    env: { BENCH_MODEL_CONNECTIONS: '0' },
  },
  { name: 'hubos serve, JSON', args: hubosArgs, route: '/api/agents/bench/run', health: '/health' },
  {
    name: 'hubos serve, SSE',
    args: hubosArgs,
    route: '/api/agents/bench/run',
    health: '/health',
    stream: true,
  },
];

const only = process.env.HUBOS_BENCH_SIDES?.toLowerCase().split(',');
const sides = allSides.filter((side) => !only || only.some((word) => side.name.toLowerCase().includes(word)));
const hubosNodeArgs = process.env.HUBOS_BENCH_HUBOS_ARGS?.split(' ').filter(Boolean) ?? [];

/** User + system CPU of a process so far, in µs. */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // clock ticks of 1/100 s
}

const message = (child: ChildProcess, test: (m: unknown) => boolean) =>
  new Promise<unknown>((resolve, reject) => {
    const onMessage = (m: unknown) => {
      if (!test(m)) return;
      child.off('message', onMessage).off('exit', onExit);
      resolve(m);
    };
    const onExit = (code: number | null) => reject(new Error(`exited with ${code} while awaited`));
    child.on('message', onMessage).once('exit', onExit);
  });

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const late = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(late);
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(side: Side) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let output = '';
  // fork: an IPC channel for the memory probe; --expose-gc so the idle figure is after a collection.
  const server = fork(side.args[0]!, side.args.slice(1), {
    cwd: dir,
    execArgv: ['--expose-gc', '--import', probe, ...(side.args === hubosArgs ? hubosNodeArgs : [])],
    env: { ...process.env, ...side.env, FAKE_URL: fake.url, PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  server.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  server.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const samples: { rss: number; heapUsed: number }[] = [];
  server.on('message', (m) => {
    if (typeof m === 'object' && m !== null && 'rss' in m)
      samples.push(m as { rss: number; heapUsed: number });
  });
  let load: ChildProcess | undefined;
  try {
    for (let deadline = Date.now() + 30_000; ; await sleep(50)) {
      if (server.exitCode !== null) throw new Error(`exited with ${server.exitCode}`);
      if (Date.now() > deadline) throw new Error('no answer in 30 s');
      if ((await fetch(`${base}${side.health}`).catch(() => undefined))?.ok) break;
    }
    load = fork(here('./concurrent-runs/load.ts'), [], {
      env: {
        ...process.env,
        BASE_URL: base,
        RUNS: String(RUNS),
        ROUTE: side.route,
        HEALTH: side.health,
        STREAM: side.stream ? '1' : '0',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // A few runs first (the store opened, the code warm), then the idle figure, after a collection.
    const warm = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${base}${side.route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input: 'Call the echo tool with the text tick, then say done.' }),
        }),
      ),
    );
    if (!warm.every((res) => res.ok))
      throw new Error(`warm-up run answered ${warm.find((r) => !r.ok)!.status}`);
    await message(load, (m) => m === 'ready');
    server.send('gc');
    await message(server, (m) => m === 'gc-done');
    const idle = samples.at(-1)!;
    samples.length = 0;
    const cpuBefore = cpuMicros(server.pid!);
    load.send('go');
    // Once the model has every run's first call, every run is in flight (none ends before its
    // second call is answered): a collection then says what they hold.
    const firstCalls = fake.calls.first + RUNS;
    let loaded = false;
    const held = (async () => {
      while (fake.calls.first < firstCalls) {
        if (loaded) throw new Error(`the model had ${fake.calls.first} first calls of ${firstCalls}`);
        await sleep(20);
      }
      server.send('held');
      return (await message(server, (m) => typeof m === 'object' && m !== null && 'heldHeap' in m)) as {
        heldRss: number;
        heldHeap: number;
      };
    })();
    const result = (await message(load, (m) => typeof m === 'object').finally(() => (loaded = true))) as {
      durations: number[];
      healthMs: number[];
    };
    const cpu = (cpuMicros(server.pid!) - cpuBefore) / RUNS;
    const { heldHeap } = await held;
    server.send('loop');
    const loop = (await message(server, (m) => typeof m === 'object' && m !== null && 'loopP99' in m)) as {
      loopP99: number;
      loopMax: number;
    };
    const peak = (key: 'rss' | 'heapUsed') => Math.max(...samples.map((s) => s[key])) - idle[key];
    const durations = result.durations.sort((a, b) => a - b);
    const health = result.healthMs.sort((a, b) => a - b);
    return {
      rssKB: peak('rss') / 1024 / RUNS,
      heapKB: peak('heapUsed') / 1024 / RUNS,
      heldKB: (heldHeap - idle.heapUsed) / 1024 / RUNS,
      median: quantile(durations, 0.5),
      p99: quantile(durations, 0.99),
      healthP99: quantile(health, 0.99),
      loopP99: loop.loopP99,
      loopMax: loop.loopMax,
      cpuMs: cpu / 1000,
    };
  } catch (error) {
    throw new Error(`${side.name}: ${(error as Error).message}\n${output}`);
  } finally {
    if (load) await stop(load);
    await stop(server);
  }
}

type Figures = Awaited<ReturnType<typeof measure>>;
const results = new Map<string, Figures[]>(sides.map((side) => [side.name, []]));
const started = performance.now();
for (let round = 0; round < ROUNDS; round++)
  for (const side of sides) results.get(side.name)!.push(await measure(side));

const range = (values: number[], digits: number) => {
  const low = Math.min(...values).toFixed(digits);
  const high = Math.max(...values).toFixed(digits);
  return low === high ? low : `${low}–${high}`;
};
const b2 = results.get(allSides[0]!.name);
const columns: [keyof Figures, string, number, string][] = [
  ['rssKB', 'KB RSS per run', 0, ''],
  ['heapKB', 'KB heap per run', 0, ''],
  ['heldKB', 'KB heap held per run', 1, ''],
  ['median', 'ms median run', 0, ''],
  ['p99', 'ms p99 run', 0, ''],
  ['healthP99', 'ms /health p99', 0, ''],
  ['loopP99', 'ms event-loop delay p99', 0, ''],
  ['loopMax', 'ms max', 0, ''],
  ['cpuMs', 'ms CPU per run', 2, ''],
];
console.log(
  `concurrent runs: ${RUNS} runs at once, model answers in ${MODEL_DELAY_MS} ms (ideal run ${2 * MODEL_DELAY_MS} ms), ` +
    `${ROUNDS} alternating rounds, ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
for (const side of sides) {
  const figures = results.get(side.name)!;
  const parts = columns.map(([key, unit, digits]) => {
    const values = figures.map((f) => f[key]);
    const text = `${range(values, digits)} ${unit}`;
    if (!b2 || side === allSides[0]) return text;
    return `${text} (${range(
      figures.map((f, i) => f[key] / b2[i]![key]),
      2,
    )}x)`;
  });
  console.log(`concurrent runs: ${side.name}: ${parts.join(', ')}`);
}
console.log(
  'concurrent runs: targets for hubos serve: memory per run <= 1.2x B2, median <= 1.1x, /health p99 <= 2x',
);
await fake.close();
rmSync(dir, { recursive: true, force: true });
