/**
 * 50 concurrent regex filesystem_search calls (20 small files each) through the tool as the runtime
 * calls it. Regular expressions run in a bounded worker pool, so the event loop's longest stall and
 * the memory growth stay small (before the pool: one thread per search, a 4.9 s stall and
 * 150 → 468 MB). Reports wall time, the longest event-loop delay, peak RSS growth and threads started.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createSandbox, executeTool, MemoryStore, Registry } from '../core/index.ts';
import { resolveLimits } from '../plugins/builtin-tools/filesystem/options.ts';
import { RegexPool } from '../plugins/builtin-tools/filesystem/regex-pool.ts';
import { searchTool } from '../plugins/builtin-tools/filesystem/search.ts';

const SEARCHES = 50;
const FILES = 20;

const root = await realpath(await mkdtemp(join(tmpdir(), 'hubos-bench-search-')));
for (let s = 0; s < SEARCHES; s++) {
  await mkdir(join(root, `d${s}`));
  for (let f = 0; f < FILES; f++) {
    const filler = `const x = ${f};\n`.repeat(200);
    await writeFile(join(root, `d${s}`, `f${f}.ts`), `${filler}// needle ${s}\n`);
  }
}

const limits = resolveLimits();
const pool = new RegexPool({ size: limits.searchRegexWorkers, timeoutMs: limits.searchRegexTimeoutMs });
const registry = new Registry();
registry.register(searchTool(limits, pool));
const env = {
  signal: new AbortController().signal,
  agentId: 'bench',
  sandbox: createSandbox(root),
  store: new MemoryStore(),
};

const delay = monitorEventLoopDelay({ resolution: 5 });
const rssBefore = process.memoryUsage.rss();
let rssPeak = rssBefore;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
}, 5);
delay.enable();
const start = performance.now();
const results = await Promise.all(
  Array.from({ length: SEARCHES }, (_, s) =>
    executeTool(registry, 'filesystem_search', { pattern: `needle ${s}$`, path: `d${s}` }, env),
  ),
);
const wallMs = performance.now() - start;
delay.disable();
clearInterval(sampler);
await rm(root, { recursive: true, force: true });

const found = results.filter((r) => r.ok && (r.output as { matches: unknown[] }).matches.length === FILES);
if (found.length !== SEARCHES) {
  throw new Error(`filesystem search bench: unexpected results ${JSON.stringify(results[0]).slice(0, 300)}`);
}
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
console.log(
  `filesystem_search: ${SEARCHES} concurrent regex searches of ${FILES} files in ${wallMs.toFixed(0)} ms; ` +
    `longest event-loop delay ${(delay.max / 1e6).toFixed(1)} ms (target < 100); ` +
    `RSS ${mb(rssBefore)} → peak ${mb(rssPeak)} MB (target growth < 100); ` +
    `${pool.stats.peakWorkers} worker threads at most (${pool.stats.startedWorkers} started)`,
);
