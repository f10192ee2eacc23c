/**
 * Workflow runs on PostgreSQL, across real processes: an instance killed mid-run (`kill -9`), or
 * frozen past its lease (SIGSTOP), has its run resumed by another with `autoResume`, and no
 * finished step runs twice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { DATABASE_URL, uniqueName } from './env.ts';
import { bootInstance } from './fixtures/workflows-ingest.ts';

const fixture = fileURLToPath(new URL('./fixtures/workflows-ingest.ts', import.meta.url));
const admin = new pg.Client({ connectionString: DATABASE_URL });
const dir = mkdtempSync(join(tmpdir(), 'hubos-wf-pg-'));
const schemas: string[] = [];
const children: ChildProcess[] = [];
const kernels: Kernel[] = [];

beforeAll(() => admin.connect());
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});
afterAll(async () => {
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
});

const marksOf = (file: string) => readFileSync(file, 'utf8').trim().split('\n');

/** A child instance that starts run `pg-run` and hangs in its second step. */
async function startFirst() {
  const schema = uniqueName('wfresume');
  schemas.push(schema);
  const marks = join(dir, `${schema}.marks`);
  const child = spawn(process.execPath, [fixture, DATABASE_URL, schema, marks], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (data: Buffer) => {
    out += data;
  });
  child.stderr!.on('data', (data: Buffer) => {
    out += data;
  });
  await expect
    .poll(() => (child.exitCode === null ? out.includes('started') : out), { timeout: 20_000 })
    .toBe(true);
  await expect.poll(() => marksOf(marks).includes('transform'), { timeout: 10_000 }).toBe(true);
  return { child, schema, marks, output: () => out };
}

async function second(schema: string, marks: string) {
  const kernel = await bootInstance(DATABASE_URL, schema, marks, { autoResume: true });
  kernels.push(kernel);
  return { kernel, ingest: kernel.service('workflows').get('ingest')! };
}

describe('workflow runs on PostgreSQL when their instance stops', () => {
  it('kill -9: another instance with autoResume finishes the run, the first step having run once', async () => {
    const first = await startFirst();
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    const { kernel, ingest } = await second(first.schema, first.marks);
    await expect
      .poll(async () => (await ingest.getRun('pg-run'))?.status, { timeout: 10_000 })
      .toBe('completed');
    const run = (await ingest.getRun('pg-run'))!;
    expect(run).toMatchObject({ output: { saved: 'ROWS:A.CSV' }, resumes: 1, instance: kernel.instance.id });
    expect(run.steps.map((s) => s.id)).toEqual(['fetch', 'transform', 'store']);
    // fetch once; transform twice (killed in it, then again); store once.
    expect(marksOf(first.marks)).toEqual(['fetch', 'transform', 'transform', 'store']);
    // Ended: nothing left queued or running in the runs table.
    const table = await kernel.runs.table();
    expect(await table.activeElsewhere('nobody')).toEqual([]);
  });

  it('SIGSTOP past the lease: the run is taken over; the frozen instance, woken, stops it without writing', async () => {
    const first = await startFirst();
    first.child.kill('SIGSTOP');
    // Alive but silent: its heartbeat expires after 1 s, then its run is taken over.
    const { kernel, ingest } = await second(first.schema, first.marks);
    await expect
      .poll(async () => (await ingest.getRun('pg-run'))?.status, { timeout: 10_000 })
      .toBe('completed');
    first.child.kill('SIGCONT');
    await expect.poll(() => first.output(), { timeout: 10_000 }).toContain('ended interrupted');
    const run = (await ingest.getRun('pg-run'))!;
    expect(run).toMatchObject({ status: 'completed', resumes: 1, instance: kernel.instance.id });
    expect(run.steps.map((s) => [s.id, s.status])).toEqual([
      ['fetch', 'completed'],
      ['transform', 'completed'],
      ['store', 'completed'],
    ]);
    expect(marksOf(first.marks)).toEqual(['fetch', 'transform', 'transform', 'store']);
  });
});
