/**
 * How long HubOS takes to start as users run it (the compiled JavaScript, built into a temp folder
 * first), each against the least a hand-written script does for the same job, in the same run:
 * - `hubos serve` on one agent (an `echo` plugin tool, the openai provider pointed at a fake model in
 *   this process): spawn to the first 2xx answer of POST /api/agents/bench/run (polled every 5 ms,
 *   as the peer bench does), and its idle RSS after that run, against B2 (bare Hono + undici doing
 *   the two model calls and the tool call by hand);
 * - `hubos run` of one offline-model turn, spawn to exit, against a bare Node script;
 * - `hubos mcp`, spawn to `tools/list` answered (the MCP SDK's client), against a bare SDK McpServer;
 * - `node -e 0` for reference.
 * Spawn times swing with machine load, so the sides alternate and each keeps its best of ROUNDS
 * (RSS: the median). Every process is checked (the answer, the model calls, the tool list).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFakeOpenAI } from './cold-start/fake-openai.ts';
import { freePort } from './free-port.ts';

const ROUNDS = 5;
/** How long a server sits after its first answered run before its RSS is read. */
const IDLE_MS = 200;
const repo = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./cold-start/${name}`, import.meta.url));

const tmp = mkdtempSync(join(tmpdir(), 'hubos-bench-cold-'));
const live = new Set<ChildProcess>();
const cleanup = () => {
  for (const child of live) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
};
const onSignal = (signal: NodeJS.Signals) => {
  cleanup();
  process.kill(process.pid, signal);
};
process.once('exit', cleanup).once('SIGINT', onSignal).once('SIGTERM', onSignal);
const fake = await startFakeOpenAI();

try {
  // The package as npm would install it: package.json beside dist/, its dependencies resolvable
  // (node_modules links to the repo's), and an app folder whose node_modules/hubos links to it.
  const pkg = join(tmp, 'hubos');
  const build = performance.now();
  // The same JavaScript as `npm run build` (the bundle), without the type declarations.
  execFileSync(process.execPath, [join(repo, 'scripts/bundle.ts'), join(pkg, 'dist')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  cpSync(join(repo, 'plugins/hubos/ui/static'), join(pkg, 'dist/plugins/hubos/ui/static'), {
    recursive: true,
  });
  copyFileSync(join(repo, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(repo, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  const app = join(tmp, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(pkg, join(app, 'node_modules/hubos'), 'dir');
  writeFileSync(join(app, 'package.json'), '{ "private": true, "type": "module" }\n');
  for (const file of ['hubos.config.mjs', 'run.config.mjs']) copyFileSync(fixture(file), join(app, file));
  const hubos = join(pkg, 'dist/bin/hubos.js');
  const buildSeconds = (performance.now() - build) / 1000;

  // No API keys: `hubos run` must pick the offline model, and nothing may reach a real provider.
  // PORT 0 for `hubos mcp`, which reads the serve config but listens nowhere.
  const env: Record<string, string> = { NODE_ENV: 'production', FAKE_URL: fake.url, PORT: '0' };
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !/^(OPENAI|ANTHROPIC)_|^NODE_ENV$|^HUBOS_/.test(key)) env[key] = value;

  const rssMB = (pid: number) => {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb) / 1024;
  };

  // Stopped as a container or Ctrl-C stops a server (SIGTERM, then SIGKILL if it lingers): a
  // process that exits writes Node's compile cache, which the next start of `hubos` reads.
  async function stop(child: ChildProcess) {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const lingering = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(lingering);
    }
    live.delete(child);
  }

  /** Spawn → first 2xx answer of the run route; then the idle RSS. Throws unless the run was right. */
  async function coldServe(
    name: string,
    args: string[],
    route: string,
    extraEnv: Record<string, string> = {},
  ) {
    const port = await freePort();
    fake.reset();
    let output = '';
    const start = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: app,
      env: { ...env, ...extraEnv, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    child.stdout.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
    child.stderr.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
    try {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before answering`);
        if (performance.now() - start > 30_000) throw new Error('no answer in 30 s');
        const response = await fetch(`http://127.0.0.1:${port}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input: 'Call the echo tool with the text tick, then say done.' }),
        }).catch(() => undefined);
        if (response?.ok) {
          const ms = performance.now() - start;
          const body = (await response.json()) as { text?: unknown };
          await sleep(IDLE_MS); // and lets any late model call land
          const calls = { ...fake.calls };
          if (body.text !== 'done' || calls.total !== 2 || calls.first !== 1 || calls.second !== 1)
            throw new Error(
              `wrong run: answer ${JSON.stringify(body)}, model calls ${JSON.stringify(calls)}`,
            );
          return { ms, rss: rssMB(child.pid!), streamed: calls.streamed };
        }
        if (response) throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
        await sleep(5);
      }
    } catch (error) {
      throw new Error(`${name}: ${(error as Error).message}\n${output}`);
    } finally {
      await stop(child);
    }
  }

  /** Spawn → exit; throws unless it exited 0 and printed `expect`. */
  function coldRun(name: string, args: string[], expect: string) {
    const start = performance.now();
    const result = spawnSync(process.execPath, args, { cwd: app, env, encoding: 'utf8', timeout: 30_000 });
    const ms = performance.now() - start;
    if (result.status !== 0 || !result.stdout.includes(expect))
      throw new Error(`${name}: exit ${result.status}, stdout ${result.stdout}\nstderr ${result.stderr}`);
    return ms;
  }

  /** Spawn → `tools/list` answered, by the SDK's client over stdio; throws unless `echo` is listed. */
  async function coldMcp(name: string, args: string[]) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args,
      cwd: app,
      env,
      stderr: 'pipe',
    });
    let output = '';
    transport.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
    const client = new Client({ name: 'cold-start-bench', version: '0.0.0' });
    try {
      const start = performance.now();
      await client.connect(transport, { timeout: 30_000 });
      const { tools } = await client.listTools(undefined, { timeout: 30_000 });
      const ms = performance.now() - start;
      if (!tools.some((tool) => tool.name === 'echo'))
        throw new Error(`no echo tool in ${tools.map((tool) => tool.name).join(', ')}`);
      return ms;
    } catch (error) {
      throw new Error(`${name}: ${(error as Error).message}\n${output}`);
    } finally {
      await client.close(); // closes its stdin, then SIGTERM: `hubos mcp` exits as it would for a desktop client
    }
  }

  const cases = {
    serve: () =>
      coldServe('hubos serve', [hubos, 'serve', '--config', 'hubos.config.mjs'], '/api/agents/bench/run'),
    serveB2: () => coldServe('B2', [fixture('baseline-loop.mjs')], '/run'),
    // The first start on a machine, before any `hubos` process has written the compile cache.
    serveUncached: () =>
      coldServe('hubos serve', [hubos, 'serve', '--config', 'hubos.config.mjs'], '/api/agents/bench/run', {
        NODE_DISABLE_COMPILE_CACHE: '1',
      }),
    run: () =>
      coldRun(
        'hubos run',
        [hubos, 'run', '--config', 'run.config.mjs', 'assistant', 'hello'],
        'offline demo model',
      ),
    runBare: () => coldRun('bare run script', [fixture('run-baseline.mjs'), 'hello'], 'canned model'),
    mcp: () => coldMcp('hubos mcp', [hubos, 'mcp', '--config', 'hubos.config.mjs']),
    mcpBare: () => coldMcp('bare McpServer', [fixture('mcp-baseline.mjs')]),
    node: () => coldRun('node -e 0', ['-e', '0'], ''),
  };

  // One untimed round checks every kind of process (and warms the file cache and HubOS's store).
  const check = await cases.serve();
  if (check.streamed !== 2) console.warn(`(hubos serve streamed ${check.streamed} of 2 model calls)`);
  await cases.serveB2();
  cases.run();
  cases.runBare();
  await cases.mcp();
  await cases.mcpBare();

  const times: Record<keyof typeof cases, number[]> = {
    serve: [],
    serveB2: [],
    serveUncached: [],
    run: [],
    runBare: [],
    mcp: [],
    mcpBare: [],
    node: [],
  };
  const rss = { serve: [] as number[], serveB2: [] as number[], serveUncached: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const key of ['serve', 'serveB2', 'serveUncached'] as const) {
      const { ms, rss: mb } = await cases[key]();
      times[key].push(ms);
      rss[key].push(mb);
    }
    times.run.push(cases.run());
    times.runBare.push(cases.runBare());
    times.mcp.push(await cases.mcp());
    times.mcpBare.push(await cases.mcpBare());
    times.node.push(cases.node());
  }

  const best = (values: number[]) => Math.min(...values);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const line = (name: string, value: number, base: number, baseName: string, unit: string, target: string) =>
    console.log(
      `${name}: ${value.toFixed(0)} ${unit}; ${(value / base).toFixed(2)}x ${baseName} (${base.toFixed(0)} ${unit})${target}`,
    );
  const B2 = 'B2 bare Hono + undici loop';
  line(
    'hubos serve, spawn → first run answered',
    best(times.serve),
    best(times.serveB2),
    B2,
    'ms',
    '; target <= 1.5x',
  );
  line(
    'hubos serve without the compile cache (a first start)',
    best(times.serveUncached),
    best(times.serveB2),
    B2,
    'ms',
    ' (reference)',
  );
  line(
    'hubos serve, idle RSS after first run',
    median(rss.serve),
    median(rss.serveB2),
    B2,
    'MB',
    '; target <= 1.2x',
  );
  line(
    'hubos run (offline model, one turn), spawn → exit',
    best(times.run),
    best(times.runBare),
    'bare Node script',
    'ms',
    '; target <= 1.5x',
  );
  line(
    'hubos mcp, spawn → tools/list answered',
    best(times.mcp),
    best(times.mcpBare),
    'bare SDK McpServer',
    'ms',
    '',
  );
  console.log(
    `node -e 0: ${best(times.node).toFixed(0)} ms (reference; times best of ${ROUNDS}, RSS median of ${ROUNDS}, ` +
      `alternating rounds; build ${buildSeconds.toFixed(1)} s)`,
  );
} finally {
  await fake.close();
  cleanup();
  process.off('exit', cleanup).off('SIGINT', onSignal).off('SIGTERM', onSignal);
}
