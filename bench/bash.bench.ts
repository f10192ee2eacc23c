/**
 * The `bash` tool's own cost: `true` through the tool (input validation, clean environment,
 * process group, capped capture) against spawning the same `bash -c true` with execa directly.
 * With bubblewrap installed, also what the sandbox costs per command.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { createSandbox, executeTool, MemoryStore, Registry, type ToolCallEnv } from '../core/index.ts';
import { type BashOptions, bashTool } from '../plugins/builtin-tools/bash/index.ts';
import { opsPerSecond, report } from './measure.ts';

// Each operation is a process spawn (milliseconds): a short budget is plenty. Spawn times swing
// with machine load, so the two sides alternate and each keeps its best of ROUNDS.
const BUDGET_MS = 300;
const ROUNDS = 3;
const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hubos-bench-bash-')));
const env: ToolCallEnv = {
  signal: new AbortController().signal,
  agentId: 'bench',
  sandbox: createSandbox(workspace),
  store: new MemoryStore(),
};

function viaTool(options: BashOptions = {}): () => Promise<unknown> {
  const registry = new Registry();
  registry.register(bashTool(options));
  return async () => {
    const result = await executeTool(registry, 'bash', { command: 'true' }, env);
    if (!result.ok) throw new Error(result.error.message);
  };
}

try {
  const direct: number[] = [];
  const tool: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    direct.push(await opsPerSecond(() => execa('/bin/bash', ['-c', 'true'], { cwd: workspace }), BUDGET_MS));
    tool.push(await opsPerSecond(viaTool({ sandbox: { kind: 'none' } }), BUDGET_MS));
  }
  report('bash tool `true`', Math.max(...tool), Math.max(...direct), 'execa bash -c true');
  if (existsSync('/usr/bin/bwrap')) {
    const sandboxed = await opsPerSecond(viaTool({ sandbox: { kind: 'bwrap' } }), BUDGET_MS);
    report('bash tool `true` in bwrap', sandboxed, Math.max(...tool), 'bash tool unsandboxed');
  }
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
