import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HUBOS_BIN, tempDir, writeFiles } from '../../helpers/run.ts';

// A workflow whose first step leaves a mark in a file (so a second run of it would show), and
// whose second step hangs when HANG is set: the first server is killed there, mid-run.
const CONFIG = `import { appendFileSync } from 'node:fs';
import { defineWorkflow } from 'hubos/plugins';

export default {
  store: { path: 'data/hubos.db' },
  workflows: [
    defineWorkflow({
      name: 'ingest',
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
        { id: 'store', kind: 'function', run: (s) => { appendFileSync('marks.txt', 'store\\n'); return { saved: s.steps.transform }; } },
      ],
    }),
  ],
};
`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function serve(dir: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [HUBOS_BIN, 'serve', '--port', '0'], {
    cwd: dir,
    env: { ...process.env, ...env },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (data: Buffer) => {
    stdout += data;
  });
  child.stderr!.on('data', (data: Buffer) => {
    stderr += data;
  });
  await expect
    .poll(() => /listening on (\S+)/.test(stdout) || child.exitCode !== null, { timeout: 15_000 })
    .toBe(true);
  const url = /listening on (\S+)/.exec(stdout)?.[1];
  if (!url) throw new Error(`hubos serve did not start: ${stderr}`);
  return { child, url };
}

const post = (url: string, body: unknown = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('resuming a workflow run after the process died', () => {
  it('a second process finishes the run the first left half done, without redoing finished steps', async () => {
    const dir = await tempDir('hubos-wf-resume-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });

    const first = await serve(dir, { HANG: '1' });
    const started = await post(`${first.url}/api/workflows/ingest/run`, {
      input: { file: 'a.csv' },
      runId: 'run-1',
      async: true,
    });
    expect(started.status).toBe(202);
    // Queued, then taken at once by the only instance.
    expect(await started.json()).toMatchObject({ runId: 'run-1', status: 'queued' });
    // Wait until fetch is recorded and transform is under way, then kill the server outright.
    await expect
      .poll(
        async () => (await readFile(join(dir, 'marks.txt'), 'utf8').catch(() => '')).includes('transform'),
        { timeout: 10_000 },
      )
      .toBe(true);
    const during = (await (await fetch(`${first.url}/api/workflows/runs/run-1`)).json()) as {
      steps: { id: string }[];
    };
    expect(during.steps.map((s) => s.id)).toEqual(['fetch']);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    const second = await serve(dir);
    // Its instance is gone (same host, no such process): the second marked it before listening.
    const interrupted = (await (await fetch(`${second.url}/api/workflows/runs/run-1`)).json()) as {
      status: string;
      error: { code: string };
    };
    expect(interrupted).toMatchObject({ status: 'interrupted', error: { code: 'RUN_INTERRUPTED' } });
    const resumed = await post(`${second.url}/api/workflows/runs/run-1/resume`);
    expect(resumed.status).toBe(200);
    const result = (await resumed.json()) as {
      status: string;
      output: unknown;
      resumes: number;
      steps: { id: string }[];
    };
    expect(result).toMatchObject({ status: 'completed', output: { saved: 'ROWS:A.CSV' }, resumes: 1 });
    expect(result.steps.map((s) => s.id)).toEqual(['fetch', 'transform', 'store']);
    // fetch ran once in all; transform twice (interrupted, then again); store once.
    expect((await readFile(join(dir, 'marks.txt'), 'utf8')).trim().split('\n')).toEqual([
      'fetch',
      'transform',
      'transform',
      'store',
    ]);

    const again = await post(`${second.url}/api/workflows/runs/run-1/resume`);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'WORKFLOW_RUN_FINISHED' } });
  });
});
