// A workflow run killed (`kill -9`) while its tool step waits for a human's approval: the next
// instance takes the run over (autoResume) and waits for that same approval, still pending and
// listed at GET /api/approvals; deciding it there lets the run complete, the tool having run once.
// Without autoResume the run ends interrupted, and the approval says it will never be acted on:
// the kernel's engine does that, with or without a server.
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../core/index.ts';
import { openApprovalTable, openRunTable } from '../../../core/internal.ts';
import { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { HUBOS_BIN, tempDir, writeFiles } from '../../helpers/run.ts';
import { serveProcess } from '../../helpers/serve-process.ts';
import { bootWorkflows } from './helpers.ts';

// `charge` leaves a mark in a file each time it runs: a second charge would show.
const CONFIG = `import { appendFileSync } from 'node:fs';
import { defineConfig, definePlugin, defineTool } from 'hubos';
import { defineWorkflow } from 'hubos/plugins';

const tools = definePlugin({
  name: 'pay-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('pay-tools', (registry) => {
      registry.register(defineTool({
        name: 'charge',
        description: 'Charges a card: running it twice charges twice.',
        permissions: ['card:charge'],
        inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
        handler: (_ctx, { input }) => {
          appendFileSync('marks.txt', 'charge\\n');
          return { charged: input.amount };
        },
      }));
    });
  },
});

export default defineConfig({
  plugins: [tools],
  store: { path: 'data/hubos.db' },
  permissions: { ask: ['card:charge'] },
  workflows: {
    autoResume: true,
    definitions: [
      defineWorkflow({
        name: 'pay',
        steps: [{ id: 'charge', kind: 'tool', tool: 'charge', input: { amount: 5 } }],
      }),
    ],
  },
});
`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function serve(dir: string) {
  const served = await serveProcess(process.execPath, [HUBOS_BIN], { cwd: dir, env: process.env });
  children.push(served.child);
  return served;
}

const post = (url: string, body: unknown = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

interface Approval {
  runId: string;
  callId: string;
  status: string;
  requestedAt: string;
  expiresAt: string;
  live: boolean;
}

/** The approvals GET /api/approvals lists for run `pay-1`. */
async function approvalsOf(url: string): Promise<Approval[]> {
  const body = (await (await fetch(`${url}/api/approvals`)).json()) as { approvals: Approval[] };
  return body.approvals.filter((approval) => approval.runId === 'pay-1');
}

const marks = async (dir: string) =>
  (await readFile(join(dir, 'marks.txt'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean);

describe('a workflow run killed while its tool step waits for an approval', () => {
  it('is taken over still waiting for that approval; deciding it completes the run, the tool run once', async () => {
    const dir = await tempDir('hubos-wf-approval-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });

    const first = await serve(dir);
    const started = await post(`${first.url}/api/workflows/pay/run`, { runId: 'pay-1', async: true });
    expect(started.status).toBe(202);
    // The step asks: the approval is stored and the first instance waits for it.
    await expect
      .poll(async () => (await approvalsOf(first.url)).map((a) => [a.callId, a.live]))
      .toEqual([['charge#1', true]]);
    const [asked] = await approvalsOf(first.url);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    // The second finds the run of a dead instance before it listens, and goes on with it.
    const second = await serve(dir);
    await expect
      .poll(async () => (await approvalsOf(second.url)).map((a) => [a.callId, a.status, a.live]), {
        timeout: 10_000,
      })
      .toEqual([['charge#1', 'pending', true]]);
    // The very request the first instance stored, as it was asked: not asked anew.
    expect((await approvalsOf(second.url))[0]).toMatchObject({
      requestedAt: asked!.requestedAt,
      expiresAt: asked!.expiresAt,
    });
    const during = (await (await fetch(`${second.url}/api/runs/pay-1`)).json()) as Record<string, unknown>;
    expect(during).toMatchObject({ status: 'running', resumes: 1 });
    expect(await marks(dir)).toEqual([]);

    const decided = await post(`${second.url}/api/runs/pay-1/approvals/charge%231`, { approved: true });
    expect(decided.status).toBe(200);
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${second.url}/api/workflows/runs/pay-1`)).json()) as { status: string })
            .status,
        {
          timeout: 10_000,
        },
      )
      .toBe('completed');
    const run = (await (await fetch(`${second.url}/api/workflows/runs/pay-1`)).json()) as Record<
      string,
      unknown
    >;
    expect(run).toMatchObject({ status: 'completed', output: { charged: 5 }, resumes: 1 });
    expect(await marks(dir)).toEqual(['charge']);
    expect(await approvalsOf(second.url)).toEqual([]);
  });
});

describe('a workflow run whose instance died, on a kernel without a server and without autoResume', () => {
  it('ends interrupted, and the approval its tool step waited for is cancelled saying why', async () => {
    const file = join(await tempDir('hubos-wf-abandon-'), 'hubos.db');
    // What an instance killed at the approval leaves: its run running, its request pending, no heartbeat.
    const left = new SqliteStore(file);
    const now = new Date().toISOString();
    await (await openRunTable(left)).insert({
      id: 'add-1',
      agent: 'workflow:adder',
      owner: '',
      status: 'running',
      via: 'workflow',
      instance: 'killed-instance',
      steps: 0,
      input: '{}',
      createdAt: now,
      startedAt: now,
      resumable: true,
    });
    await (await openApprovalTable(left)).put({
      runId: 'add-1',
      agent: 'workflow:adder',
      step: 0,
      callId: 'sum#1',
      tool: 'add',
      input: { a: 1, b: 2 },
      permissions: ['math:add'],
      requestedAt: now,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      status: 'pending',
    });
    await left.close();

    const adder = defineWorkflow({
      name: 'adder',
      steps: [{ id: 'sum', kind: 'tool', tool: 'add', input: { a: 1, b: 2 } }],
    });
    const { kernel, workflows } = await bootWorkflows(
      [adder],
      {},
      {
        store: new SqliteStore(file),
        config: { permissions: { ask: ['math:add'] } },
      },
    );
    expect(kernel.hasService('hubos')).toBe(false);
    // Found at boot: the kernel's engine, served by the workflows plugin, marks it.
    expect(await workflows.get('adder')!.getRun('add-1')).toMatchObject({
      status: 'interrupted',
      error: { code: 'RUN_INTERRUPTED', message: expect.stringContaining('killed-instance') },
    });
    await expect.poll(async () => (await kernel.approvals.get('add-1', 'sum#1'))?.status).toBe('cancelled');
    expect((await kernel.approvals.get('add-1', 'sum#1'))?.reason).toContain('autoResume is off');
  });
});
