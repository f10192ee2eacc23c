/**
 * filesystem_read of a small file through the tool as the runtime calls it (executeTool: input
 * validation, confinement — a pinned parent folder, O_NOFOLLOW open, descriptor path checks — then
 * the line reader) against reading the same file with fs.readFile.
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, executeTool, MemoryStore, Registry } from '../core/index.ts';
import { filesystemTools } from '../plugins/builtin-tools/filesystem/index.ts';
import { opsPerSecond, report } from './measure.ts';

const root = await realpath(await mkdtemp(join(tmpdir(), 'hubos-bench-fs-')));
const text = 'a small note\n'.repeat(40); // ~0.5 KB
await writeFile(join(root, 'note.txt'), text);

const registry = new Registry();
registry.registerBatch(filesystemTools());
const env = {
  signal: new AbortController().signal,
  agentId: 'bench',
  sandbox: createSandbox(root),
  store: new MemoryStore(),
};
const input = { path: 'note.txt' };
const check = await executeTool(registry, 'filesystem_read', input, env);
if (!check.ok || (check.output as { content: string }).content !== text) {
  throw new Error(`filesystem bench: unexpected result ${JSON.stringify(check).slice(0, 300)}`);
}

const toolOps = await opsPerSecond(() => executeTool(registry, 'filesystem_read', input, env));
const directOps = await opsPerSecond(() => readFile(join(root, 'note.txt'), 'utf8'));
await rm(root, { recursive: true, force: true });

report('filesystem_read, 0.5 KB file', toolOps, directOps, 'fs.readFile');
