// A run whose instance died resumes on the instance that finds it, from the journal its model and
// tool calls left: finished calls are not made again, a call in flight runs again only when its tool
// is idempotent (or it never started: it waited for an approval), and the session holds every
// message once. What cannot resume ends `interrupted`; a cancel of a resumable one ends it at once.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../../core/agent/messages.ts';
import { INSTANCES_NAMESPACE } from '../../../core/instance.ts';
import { sessionKey } from '../../../core/principal.ts';
import { openRunTable } from '../../../core/runs/open-run-table.ts';
import type { RunRecord } from '../../../core/runs/run-record.ts';
import type { RunStep } from '../../../core/runs/run-table.ts';
import { SqliteStore } from '../../../core/store/sqlite.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { ran, shopTools } from './shop-tools.ts';

let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hubos-resume-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a killed process leaves in the file: a fresh heartbeat of a pid that has exited. */
async function ghostInstance(store: SqliteStore): Promise<string> {
  const pid = spawnSync(process.execPath, ['-e', 'process.pid']).pid!;
  const id = `${hostname().slice(0, 32)}-${pid}-dead`;
  await store.set(INSTANCES_NAMESPACE, id, {
    id,
    host: hostname(),
    pid,
    startedAt: new Date().toISOString(),
    expiresAt: Date.now() + 60_000,
  });
  return id;
}

interface Left {
  /** The run's messages its journal kept. */
  journal: Message[][];
  /** What its session already held (the run appends each finished step). */
  session?: Message[];
  approval?: 'pending';
  resumable?: boolean;
  /** The model the run was asked to run on, when not its agent's. */
  model?: string;
}

/** Writes what a process that died in the middle of run `r-1` left, then closes the file. */
async function leftBehind(path: string, left: Left): Promise<void> {
  ran.lookup = ran.charge = 0;
  const store = new SqliteStore(path);
  const ghost = await ghostInstance(store);
  const table = await openRunTable(store);
  const now = new Date().toISOString();
  const run: RunRecord = {
    id: 'r-1',
    agent: 'helper',
    owner: 'local',
    sessionId: 's-1',
    status: 'running',
    via: 'rest',
    instance: ghost,
    input: 'buy it',
    createdAt: now,
    startedAt: now,
    resumable: left.resumable ?? true,
    ...(left.model ? { model: left.model } : {}),
  };
  await table.insert(run);
  for (const [i, messages] of left.journal.entries())
    await table.journal({ runId: 'r-1', seq: i + 1, step: 1, messages }, ghost);
  for (const [i, message] of (left.session ?? []).entries())
    await store.set(
      'sessions:helper',
      `${sessionKey('local', 's-1')}/${String(i).padStart(4, '0')}`,
      message as never,
    );
  if (left.approval)
    await store.set('approvals', 'r-1/c-charge', {
      runId: 'r-1',
      agent: 'helper',
      sessionId: sessionKey('local', 's-1'),
      principal: 'local',
      step: 1,
      callId: 'c-charge',
      tool: 'charge',
      input: {},
      permissions: ['card:charge'],
      requestedAt: now,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      status: 'pending',
    });
  await store.close();
}

/** The steps the dead instance wrote as they finished (its model call, then its tool call). */
async function keptSteps(path: string, kinds: ('model' | 'tool')[]): Promise<void> {
  const store = new SqliteStore(path);
  const table = await openRunTable(store);
  const at = new Date().toISOString();
  await table.addSteps(
    kinds.map((kind, i) => ({
      runId: 'r-1',
      seq: i + 1,
      kind,
      name: kind === 'model' ? 'dead-model' : 'lookup',
      step: 1,
      startedAt: at,
      finishedAt: at,
      durationMs: 0,
      status: 'ok' as const,
    })),
  );
  await store.close();
}

/** `helper` on a ScriptedModel of `script`, and `writer` on `other` when given. */
async function serveOn(path: string, script: ScriptStep[], other?: ScriptedModel) {
  const model = new ScriptedModel(script);
  const kernel = await bootKernel({
    store: undefined,
    plugins: [shopTools],
    config: {
      store: { path },
      permissions: { ask: ['card:charge'] },
      agents: { helper: { model, tools: ['*'] }, ...(other ? { writer: { model: other } } : {}) },
    },
  });
  const hubos = new HubOS({ kernel, port: 0, rateLimit: false });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  closers.push(async () => {
    await hubos.close();
    await kernel.close();
  });
  return { kernel, hubos, model, url };
}

async function until(url: string, done: (record: RunRecord) => boolean): Promise<RunRecord> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const record = (await (await fetch(`${url}/api/runs/r-1`)).json()) as RunRecord;
    if (done(record) || Date.now() > deadline) return record;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const user: Message = { role: 'user', content: 'buy it' };
const asks = (...names: string[]): Message => ({
  role: 'assistant',
  content: '',
  toolCalls: names.map((name) => ({ id: `c-${name}`, name, input: {} })),
});
const answered = (name: string, content: string): Message => ({
  role: 'tool',
  toolCallId: `c-${name}`,
  name,
  content,
});

describe('a run whose instance died', () => {
  it("resumes on the model the run was asked to run on, not its agent's", async () => {
    const path = join(dir, 'hubos.db');
    // Died in its first model call: nothing journalled, the call is made again from the input.
    await leftBehind(path, { journal: [], model: 'scripted:other' });
    const other = new ScriptedModel(['from the other model'], { modelId: 'other' });
    const { url, model, hubos } = await serveOn(path, [], other);
    const done = await until(url, (record) => record.status === 'completed');
    expect(done).toMatchObject({ status: 'completed', resumes: 1, model: 'scripted:other' });
    expect(done.result?.text).toBe('from the other model');
    expect(model.requests).toHaveLength(0);
    const steps = (await hubos.runs.steps('r-1'))!;
    expect(steps.map((step) => [step.kind, step.name])).toEqual([['model', 'scripted:other']]);
  });

  it('resumes in flight: the idempotent call runs again, the other is reported of unknown outcome', async () => {
    const path = join(dir, 'hubos.db');
    // Died while both calls ran: the model's answer was kept, no result was.
    await leftBehind(path, { journal: [[user, asks('lookup', 'charge')]], session: [user] });
    const { url, model, kernel } = await serveOn(path, ['bought, I think']);
    const done = await until(url, (record) => record.status === 'completed');
    expect(done).toMatchObject({ status: 'completed', resumes: 1, instance: kernel.instance.id });
    expect(done.result?.text).toBe('bought, I think');
    expect(ran).toEqual({ lookup: 1, charge: 0 });
    // The model's one call saw both outcomes, after the conversation the run had before.
    const sent = model.requests[0]!.messages;
    expect(sent.slice(0, 2)).toEqual([user, asks('lookup', 'charge')]);
    expect(sent[2]).toMatchObject({ role: 'tool', toolCallId: 'c-lookup', content: '{"price":42}' });
    expect(sent[3]).toMatchObject({ role: 'tool', toolCallId: 'c-charge', isError: true });
    expect(sent[3]!.content).toContain('may or may not have taken effect');
    // The session holds each message once, the user's first.
    const session = await kernel.sessions.load('helper', sessionKey('local', 's-1'));
    expect(session.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    // Ended: its journal is gone (dropped just after the end is recorded, which the poll may see first).
    const runTable = await openRunTable(kernel.store);
    await vi.waitFor(async () => expect(await runTable.readJournal('r-1')).toEqual([]));
    const steps = (await (await fetch(`${url}/api/runs/r-1/steps`)).json()) as { steps: { name: string }[] };
    expect(steps.steps.map((step) => step.name)).toEqual(['lookup', 'charge', 'scripted:scripted']);
  });

  it('makes the model call in flight again, and never the finished ones', async () => {
    const path = join(dir, 'hubos.db');
    // Died in the second model call: both tools had answered, the session has the first step.
    const step = [asks('lookup'), answered('lookup', '{"price":42}')];
    await leftBehind(path, { journal: [[user, step[0]!], [step[1]!]], session: [user, ...step] });
    await keptSteps(path, ['model', 'tool']);
    const { url, model, kernel } = await serveOn(path, ['it costs 42']);
    const done = await until(url, (record) => record.status === 'completed');
    expect(done.result?.text).toBe('it costs 42');
    // The trace goes on after the steps the dead instance kept: none is lost or written over.
    const { steps } = (await (await fetch(`${url}/api/runs/r-1/steps`)).json()) as { steps: RunStep[] };
    expect(steps.map((s) => `${s.seq}:${s.kind}:${s.name}`)).toEqual([
      '1:model:dead-model',
      '2:tool:lookup',
      '3:model:scripted:scripted',
    ]);
    expect(ran).toEqual({ lookup: 0, charge: 0 });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages).toEqual([user, ...step]);
    const session = await kernel.sessions.load('helper', sessionKey('local', 's-1'));
    expect(session).toEqual([user, ...step, { role: 'assistant', content: 'it costs 42' }]);
  });

  it('starts again from its input when it died in its first model call', async () => {
    const path = join(dir, 'hubos.db');
    await leftBehind(path, { journal: [], session: [user] });
    const { url, kernel } = await serveOn(path, ['fresh answer']);
    const done = await until(url, (record) => record.status === 'completed');
    expect(done.result?.text).toBe('fresh answer');
    const session = await kernel.sessions.load('helper', sessionKey('local', 's-1'));
    expect(session).toEqual([user, { role: 'assistant', content: 'fresh answer' }]);
  });

  it('keeps a pending approval pending, and acts on the decision made after the death', async () => {
    const path = join(dir, 'hubos.db');
    await leftBehind(path, { journal: [[user, asks('charge')]], session: [user], approval: 'pending' });
    const { url, kernel } = await serveOn(path, ['charged']);
    const waiting = await until(url, (record) => record.resumes === 1);
    expect(waiting.status).toBe('running');
    expect(await kernel.approvals.get('r-1', 'c-charge')).toMatchObject({ status: 'pending' });
    const decided = await fetch(`${url}/api/runs/r-1/approvals/c-charge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true }),
    });
    expect(decided.status).toBe(200);
    const done = await until(url, (record) => record.status === 'completed');
    expect(done.result?.text).toBe('charged');
    // The call never started before the death: approved now, it ran, once.
    expect(ran.charge).toBe(1);
    expect(await kernel.approvals.get('r-1', 'c-charge')).toMatchObject({ status: 'approved' });
  });

  it('ends interrupted when it cannot resume, saying why', async () => {
    const path = join(dir, 'hubos.db');
    await leftBehind(path, { journal: [[user, asks('charge')]], resumable: false });
    const { url } = await serveOn(path, []);
    const done = await until(url, (record) => record.status !== 'running');
    expect(done).toMatchObject({ status: 'interrupted', error: { code: 'RUN_INTERRUPTED' } });
    expect(done.error!.message).toContain('cannot resume');
    expect(ran.charge).toBe(0);
  });
});

describe('a cancel reaching a resumable run whose instance died', () => {
  it('ends it cancelled at once, and it never resumes', async () => {
    const path = join(dir, 'hubos.db');
    await leftBehind(path, { journal: [[user, asks('charge')]], session: [user] });
    // A server that does not take queued runs nor sweep: only the cancel finds the run.
    const store = new SqliteStore(path);
    const kernel = await bootKernel({
      store,
      plugins: [shopTools],
      config: { agents: { helper: { model: new ScriptedModel([]), tools: ['*'] } } },
    });
    closers.push(() => kernel.close());
    const { RunEngine } = await import('../../../core/runs/run-engine.ts');
    const engine = new RunEngine({
      store: kernel.store,
      bus: kernel.bus,
      instance: kernel.instance,
      resolveAgent: (name) => kernel.agent(name),
    });
    const cancelled = await engine.cancel('r-1');
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect((await engine.get('r-1'))?.status).toBe('cancelled');
    await engine.sweep();
    expect((await engine.get('r-1'))?.status).toBe('cancelled');
    expect(ran.charge).toBe(0);
  });
});
