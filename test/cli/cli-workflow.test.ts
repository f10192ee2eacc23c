import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HUBOS_BIN, hubos, tempDir, writeFiles } from '../helpers/run.ts';

// The first step leaves a mark; the second hangs while HANG is set (until cancelled).
const CONFIG = `import { appendFileSync } from 'node:fs';
import { defineWorkflow } from 'hubos/plugins';

export default {
  store: { path: 'data/hubos.db' },
  workflows: [
    defineWorkflow({
      name: 'ingest',
      description: 'Fetches, transforms, stores.',
      inputSchema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
      steps: [
        { id: 'fetch', kind: 'function', run: (s) => { appendFileSync('marks.txt', 'fetch\\n'); return 'rows:' + s.input.file; } },
        {
          id: 'transform',
          kind: 'function',
          run: (s, { signal }) => {
            appendFileSync('marks.txt', 'transform\\n');
            if (process.env.HANG) return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
            return String(s.steps.fetch).toUpperCase();
          },
        },
      ],
    }),
  ],
};
`;

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

const marks = async (dir: string) =>
  (await readFile(join(dir, 'marks.txt'), 'utf8').catch(() => '')).trim().split('\n');

describe('hubos workflow', () => {
  it('lists, runs (output to stdout), and refuses bad input with its reason', async () => {
    const dir = await tempDir('hubos-wf-cli-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });
    const listed = await hubos(['workflow', 'list'], dir);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('ingest  Fetches, transforms, stores.');
    expect(listed.stdout).toContain('- transform (function)');
    const ran = await hubos(['workflow', 'run', 'ingest', '{"file": "a.csv"}'], dir);
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim()).toBe('ROWS:A.CSV');
    expect(ran.stderr).toContain('✓ fetch');
    const bad = await hubos(['workflow', 'run', 'ingest', '{}'], dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('missing required property "file"');
    const notJson = await hubos(['workflow', 'run', 'ingest', '{oops'], dir);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('the input is not JSON');
    const noSub = await hubos(['workflow'], dir);
    expect(noSub.code).toBe(2);
    expect(noSub.stderr).toContain('workflow needs a subcommand');
  });

  it('Ctrl-C cancels a run (exit 130, says how to resume), and resume finishes it without redoing steps', async () => {
    const dir = await tempDir('hubos-wf-cli-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });
    child = spawn(
      process.execPath,
      [HUBOS_BIN, 'workflow', 'run', 'ingest', '{"file":"b.csv"}', '--run-id', 'r-1'],
      {
        cwd: dir,
        env: { ...process.env, HANG: '1' },
      },
    );
    let stderr = '';
    child.stderr!.on('data', (data: Buffer) => {
      stderr += data;
    });
    const exited = new Promise<number | null>((resolve) => child!.on('exit', resolve));
    await expect.poll(() => marks(dir), { timeout: 15_000 }).toEqual(['fetch', 'transform']);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('cancelled at step "transform"');
    expect(stderr).toContain('resume it with: hubos workflow resume r-1');
    const resumed = await hubos(['workflow', 'resume', 'r-1', '--json'], dir);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      status: 'completed',
      output: 'ROWS:B.CSV',
      resumes: 1,
    });
    expect(await marks(dir)).toEqual(['fetch', 'transform', 'transform']);
    const missing = await hubos(['workflow', 'resume', 'nope'], dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no workflow run "nope"');
  });
});
