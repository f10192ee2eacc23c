// `runs.durability`: under 'sync' (the default) a run keeps each step in its journal before it goes
// on, so another instance resumes it; under 'exit' it keeps no journal, its record and steps are
// written as ever, and when its instance dies it ends `interrupted`, saying why, its tools not run again.
// The death is what a `kill -9` leaves: a copy of the store taken mid-run, its heartbeat gone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HubosError, type RunDurability } from '../../../core/index.ts';
import { INSTANCES_NAMESPACE } from '../../../core/instance.ts';
import { openRunTable } from '../../../core/runs/open-run-table.ts';
import { RunEngine } from '../../../core/runs/run-engine.ts';
import type { RunRecord } from '../../../core/runs/run-record.ts';
import { SqliteStore } from '../../../core/store/sqlite.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { expectHubosRejection } from '../../core/helpers.ts';
import { ran, shopTools } from './shop-tools.ts';

let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hubos-durability-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

async function serveOn(path: string, script: ScriptStep[], durability?: RunDurability) {
  const kernel = await bootKernel({
    store: undefined,
    plugins: [shopTools],
    config: {
      store: { path },
      permissions: { ask: ['card:charge'] },
      agents: { helper: { model: new ScriptedModel(script), tools: ['*'] } },
      ...(durability ? { runs: { durability } } : {}),
    },
  });
  const hubos = new HubOS({ kernel, port: 0, rateLimit: false });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  closers.push(async () => {
    await hubos.close();
    await kernel.close();
  });
  return { kernel, url };
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const runOf = async (url: string, id: string) =>
  (await (await fetch(`${url}/api/runs/${id}`)).json()) as RunRecord;
const pendingOf = async (url: string, id: string) =>
  ((await (await fetch(`${url}/api/runs/${id}/approvals`)).json()) as { approvals: { callId: string }[] })
    .approvals;

/**
 * Starts a run that reads a price, then waits for a human to allow a charge; resolves once it waits
 * (its lookup done), with the run's id and the call waiting.
 */
async function startAndPause(
  url: string,
): Promise<{ runId: string; callId: string; done: Promise<Response> }> {
  ran.lookup = ran.charge = 0;
  const done = fetch(`${url}/api/agents/helper/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'buy it' }),
  });
  const list = async () => (await (await fetch(`${url}/api/runs`)).json()) as { runs: RunRecord[] };
  const runId = (await until(list, (page) => page.runs.length > 0)).runs[0]!.id;
  const pending = await until(
    () => pendingOf(url, runId),
    (approvals) => approvals.length > 0,
  );
  return { runId, callId: pending[0]!.callId, done };
}

/** What a `kill -9` of the serving process leaves: the store as it is now, the instance's heartbeat gone. */
async function killedCopy(path: string, instanceId: string, name: string): Promise<string> {
  const copy = join(dir, name);
  const db = new DatabaseSync(path);
  db.prepare('VACUUM INTO ?').run(copy);
  db.close();
  const store = new SqliteStore(copy);
  await store.delete(INSTANCES_NAMESPACE, instanceId);
  await store.close();
  return copy;
}

/** Ends the paused run on the instance that is left alive after its copy was taken (it would wait for ever). */
async function stop(url: string, runId: string): Promise<void> {
  expect((await fetch(`${url}/api/runs/${runId}/cancel`, { method: 'POST' })).status).toBe(200);
}

const script: ScriptStep[] = [
  { toolCalls: [{ name: 'lookup' }] },
  { toolCalls: [{ name: 'charge' }] },
  'bought',
];
const EXIT_REASON = "runs.durability is 'exit': a run does not resume on another instance";

describe('runs.durability', () => {
  it.each([
    ['sync', 3],
    ['exit', 0],
  ] as const)(
    "under '%s' a run waiting mid-way has %i journal entries, and its steps are recorded",
    async (durability, entries) => {
      const path = join(dir, 'hubos.db');
      const { kernel, url } = await serveOn(path, script, durability);
      const { runId, callId, done } = await startAndPause(url);
      const table = await openRunTable(kernel.store);
      // Under 'sync', kept so far: the first model answer (with the user's message), the lookup's
      // result, the second model answer (the charge it waits to make).
      expect(await table.readJournal(runId)).toHaveLength(entries);
      expect((await runOf(url, runId)).resumable).toBe(durability === 'sync' ? true : undefined);
      const decided = await fetch(`${url}/api/runs/${runId}/approvals/${callId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      });
      expect(decided.status).toBe(200);
      expect((await done).status).toBe(200);
      expect(await runOf(url, runId)).toMatchObject({ status: 'completed', result: { text: 'bought' } });
      expect(ran).toEqual({ lookup: 1, charge: 1 });
      const steps = (await (await fetch(`${url}/api/runs/${runId}/steps`)).json()) as {
        steps: { name: string }[];
      };
      expect(steps.steps.map((step) => step.name)).toEqual([
        'scripted:scripted',
        'lookup',
        'scripted:scripted',
        'charge',
        'scripted:scripted',
      ]);
      expect(await table.readJournal(runId)).toEqual([]);
    },
  );

  it("under 'exit' a queued run is not resumable either, and runs to its end", async () => {
    const { url } = await serveOn(join(dir, 'hubos.db'), ['hi'], 'exit');
    const queued = await fetch(`${url}/api/agents/helper/run?async=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hello' }),
    });
    expect(queued.status).toBe(202);
    const { runId } = (await queued.json()) as { runId: string };
    const done = await until(
      () => runOf(url, runId),
      (record) => record.status === 'completed',
    );
    expect(done).toMatchObject({ status: 'completed', result: { text: 'hi' } });
    expect(done.resumable).toBeUndefined();
  });

  it.each([
    ['exit', EXIT_REASON],
    ['sync', "it was started under runs.durability 'exit'"],
  ] as const)(
    "under 'exit' a run whose instance died ends interrupted, found under '%s' saying why, its tools not run again",
    async (finder, reason) => {
      const path = join(dir, 'hubos.db');
      const first = await serveOn(path, script, 'exit');
      const { runId, callId } = await startAndPause(first.url);
      const copy = await killedCopy(path, first.kernel.instance.id, 'killed.db');
      await stop(first.url, runId);
      ran.lookup = ran.charge = 0;
      // Another instance, on what the dead one left: it sweeps at start, and finds the run orphaned.
      const { url } = await serveOn(copy, ['never asked'], finder);
      const ended = await until(
        () => runOf(url, runId),
        (record) => record.status !== 'running',
      );
      expect(ended).toMatchObject({ status: 'interrupted', error: { code: 'RUN_INTERRUPTED' } });
      expect(ended.error!.message).toContain(reason);
      expect(ended.resumes).toBeUndefined();
      expect(ran).toEqual({ lookup: 0, charge: 0 });
      // A decision arriving now is answered with the run as it stands.
      const late = await fetch(`${url}/api/runs/${runId}/approvals/${callId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      });
      expect(late.status).toBe(409);
      const answer = (await late.json()) as { approval: { status: string; reason: string } };
      expect(answer.approval.status).toBe('cancelled');
      expect(answer.approval.reason).toContain(reason);
      expect(ran.charge).toBe(0);
    },
  );

  it("under 'exit' a cancel of a run whose instance died answers RUN_ENDED, interrupted, naming the setting", async () => {
    const path = join(dir, 'hubos.db');
    const first = await serveOn(path, script, 'exit');
    const { runId } = await startAndPause(first.url);
    const copy = await killedCopy(path, first.kernel.instance.id, 'killed.db');
    await stop(first.url, runId);
    // An engine that neither sweeps nor takes runs: only the cancel finds the run orphaned.
    const kernel = await bootKernel({
      store: new SqliteStore(copy),
      plugins: [shopTools],
      config: { agents: { helper: { model: new ScriptedModel([]), tools: ['*'] } } },
    });
    closers.push(() => kernel.close());
    const engine = new RunEngine({
      store: kernel.store,
      bus: kernel.bus,
      instance: kernel.instance,
      resolveAgent: (name) => kernel.agent(name),
      durability: 'exit',
    });
    const error = await expectHubosRejection(engine.cancel(runId), 'RUN_ENDED');
    const record = (error.details as { record: RunRecord }).record;
    expect(record).toMatchObject({ id: runId, status: 'interrupted' });
    expect(record.error!.message).toContain(EXIT_REASON);
    expect((await engine.get(runId))?.status).toBe('interrupted');
  });

  it('refuses to start with another value, naming the key and the allowed values', async () => {
    const error = await expectHubosRejection(
      bootKernel({ config: { runs: { durability: 'async' as never } } }),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain('"runs.durability" must be one of "sync", "exit"');
    expect(HubosError.is(error)).toBe(true);
  });
});
