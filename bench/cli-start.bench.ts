/**
 * How long a `hubos` command takes to start: `hubos --version` and `hubos --help` (which answer
 * before the CLI and the kernel load) and `hubos tools` on the built-in defaults (which boots a
 * kernel), each against `node -e 0` in the same run. Spawn times swing with machine load, so the
 * sides alternate and each keeps its best of ROUNDS.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROUNDS = 7;
const HUBOS = fileURLToPath(new URL('../bin/hubos.ts', import.meta.url));
const empty = mkdtempSync(join(tmpdir(), 'hubos-bench-cli-'));

function seconds(args: string[]): number {
  const start = performance.now();
  execFileSync(process.execPath, args, { cwd: empty, stdio: 'ignore' });
  return (performance.now() - start) / 1000;
}

const cases: [string, string[]][] = [
  ['node -e 0', ['-e', '0']],
  ['hubos --version', [HUBOS, '--version']],
  ['hubos --help', [HUBOS, '--help']],
  ['hubos tools (built-in defaults)', [HUBOS, 'tools']],
];
const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, args] of cases) best.set(name, Math.min(best.get(name) ?? Infinity, seconds(args)));
}
rmSync(empty, { recursive: true, force: true });

const baseline = best.get('node -e 0')!;
for (const [name] of cases.slice(1)) {
  const time = best.get(name)!;
  console.log(
    `${name}: ${(time * 1000).toFixed(0)} ms; ${(time / baseline).toFixed(1)}x node -e 0 (${(baseline * 1000).toFixed(0)} ms)`,
  );
}
