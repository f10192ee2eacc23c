// The experiments a caller can find and forget: GET /api/experiments by pages, one with its cases,
// and DELETE; each key sees its own only (an admin key everyone's), and nonsense is a clear 4xx.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Experiment } from '../../../core/evals/experiment.ts';
import { ExperimentStore, SqliteStore } from '../../../core/index.ts';
import { caseResult, seedExperiment } from '../../helpers/experiments.ts';
import { buildHelper, type Built as Served } from './helpers.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);
const ADMIN = 'c'.repeat(32);

async function serve(options: Parameters<typeof buildHelper>[1] = {}): Promise<Served> {
  const served = await buildHelper([], {
    ...options,
    apiKeys: [
      { key: ALICE, id: 'alice' },
      { key: BOB, id: 'bob' },
      { key: ADMIN, id: 'root', admin: true },
    ],
  });
  closers.push(served.close);
  return served;
}

async function call(served: Served, path: string, key: string, method = 'GET') {
  const response = await served.hubos.app.request(path, {
    method,
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 10, minute));

/** Two cases of a refund dataset, the second worse than before. */
function refundCases() {
  return [
    caseResult('refund-policy', 'How long do I have to return a jacket?', 'You have 30 days to return it.', {
      contains: { score: 1, reason: 'contains "30 days"' },
      judge: { score: 0.9, reason: 'Accurate and polite; names the policy.' },
    }),
    caseResult(
      'refund-late',
      'Can I return it after 45 days?',
      'Sure, any time.',
      {
        contains: { score: 0, reason: 'does not contain "30 days"' },
        judge: { score: 0.2, reason: 'Contradicts the 30-day policy.' },
      },
      { worse: { judge: { before: 0.8, now: 0.2 } } },
    ),
  ];
}

describe('GET /api/experiments', () => {
  it("lists the caller's experiments newest first, by pages that meet end to end, filtered by agent", async () => {
    const served = await serve();
    const store = served.kernel.store;
    const mine: Experiment[] = [];
    for (let i = 0; i < 5; i++)
      mine.push(
        await seedExperiment(store, refundCases(), {
          owner: 'alice',
          agent: i % 2 ? 'helper' : 'writer',
          createdAt: at(i),
          thresholds: { contains: 0.9 },
        }),
      );
    await seedExperiment(store, refundCases(), { owner: 'bob', createdAt: at(9) });

    const first = await call(served, '/api/experiments?limit=2', ALICE);
    expect(first.status).toBe(200);
    expect(first.body.experiments.map((e: Experiment) => e.id)).toEqual([mine[4]!.id, mine[3]!.id]);
    expect(first.body.experiments[0]).toMatchObject({
      owner: 'alice',
      agent: 'writer',
      dataset: { name: 'support', cases: 2 },
      summary: {
        cases: 2,
        passed: false,
        scorers: { contains: { mean: 0.5, threshold: 0.9, passed: false } },
      },
    });
    // The cursor is opaque text, not the store's object.
    expect(typeof first.body.next).toBe('string');
    const second = await call(served, `/api/experiments?limit=2&after=${first.body.next}`, ALICE);
    const third = await call(served, `/api/experiments?limit=2&after=${second.body.next}`, ALICE);
    expect([...second.body.experiments, ...third.body.experiments].map((e: Experiment) => e.id)).toEqual([
      mine[2]!.id,
      mine[1]!.id,
      mine[0]!.id,
    ]);
    expect(third.body.next).toBeUndefined();

    const helperOnly = await call(served, '/api/experiments?agent=helper', ALICE);
    expect(helperOnly.body.experiments.map((e: Experiment) => e.id)).toEqual([mine[3]!.id, mine[1]!.id]);
    expect((await call(served, '/api/experiments?agent=nobody', ALICE)).body.experiments).toEqual([]);

    // Bob sees his one; the admin key sees all six.
    expect((await call(served, '/api/experiments', BOB)).body.experiments).toHaveLength(1);
    expect((await call(served, '/api/experiments', ADMIN)).body.experiments).toHaveLength(6);
  });

  it('answers an agent, limit or cursor that makes no sense with a 400 that says which', async () => {
    const served = await serve();
    const forged = Buffer.from('e1:12:../../etc').toString('base64url');
    for (const [query, names] of [
      ['limit=0', 'limit "0"'],
      ['limit=201', 'limit "201"'],
      ['limit=ten', 'limit "ten"'],
      ['limit=-1', 'limit "-1"'],
      [`agent=${'x'.repeat(300)}`, 'agent "'],
      [`agent=${encodeURIComponent('a b')}`, 'agent "a b"'],
      ['after=nonsense', 'after "nonsense"'],
      [`after=${forged}`, `after "${forged}"`],
      [`after=${'A'.repeat(5000)}`, 'after "'],
      [`after=${encodeURIComponent('{"time":1,"key":"x"}')}`, 'after "'],
    ]) {
      const answer = await call(served, `/api/experiments?${query}`, ALICE);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe('EXPERIMENT_QUERY_INVALID');
      expect(answer.body.error.message).toContain(names);
      expect(answer.body.error.message.length).toBeLessThan(300);
    }
  });
});

describe('GET /api/experiments/:id', () => {
  it("answers the experiment with its cases in order, and another key's as not found", async () => {
    const served = await serve();
    const experiment = await seedExperiment(served.kernel.store, refundCases(), {
      owner: 'alice',
      baseline: { id: 'earlier', means: { judge: 0.85, contains: 0.5 } },
    });
    const answer = await call(served, `/api/experiments/${experiment.id}`, ALICE);
    expect(answer.status).toBe(200);
    expect(answer.body.experiment).toEqual(experiment);
    expect(answer.body.cases.map((c: { id: string }) => c.id)).toEqual(['refund-policy', 'refund-late']);
    expect(answer.body.cases[1]).toMatchObject({
      output: 'Sure, any time.',
      scores: { judge: { score: 0.2, reason: 'Contradicts the 30-day policy.' } },
      worse: { judge: { before: 0.8, now: 0.2 } },
    });

    const bob = await call(served, `/api/experiments/${experiment.id}`, BOB);
    expect(bob.status).toBe(404);
    expect(bob.body.error).toEqual({
      code: 'EXPERIMENT_NOT_FOUND',
      message: `no experiment "${experiment.id}"`,
    });
    expect((await call(served, `/api/experiments/${experiment.id}`, ADMIN)).status).toBe(200);
  });

  it('answers huge, forged and unknown ids as not found, never a 500', async () => {
    const served = await serve();
    for (const id of [
      'x'.repeat(10_000),
      encodeURIComponent('../runs'),
      encodeURIComponent('a\u0000b'),
      '%ED%A0%80',
      '0192f0a0-0000-7000-8000-000000000000',
    ]) {
      for (const method of ['GET', 'DELETE']) {
        const answer = await call(served, `/api/experiments/${id}`, ALICE, method);
        expect(answer.status, `${method} ${id.slice(0, 20)}`).toBe(404);
        expect(answer.body.error.code).toBe('EXPERIMENT_NOT_FOUND');
        expect(answer.body.error.message.length).toBeLessThan(120);
      }
    }
  });
});

describe('DELETE /api/experiments/:id', () => {
  it('forgets an experiment and its cases; not another key’s', async () => {
    const served = await serve();
    const experiment = await seedExperiment(served.kernel.store, refundCases(), { owner: 'alice' });
    expect((await call(served, `/api/experiments/${experiment.id}`, BOB, 'DELETE')).status).toBe(404);
    expect((await call(served, `/api/experiments/${experiment.id}`, ALICE)).status).toBe(200);

    const gone = await served.hubos.app.request(`/api/experiments/${experiment.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ALICE}` },
    });
    expect(gone.status).toBe(204);
    expect(await gone.text()).toBe('');
    expect((await call(served, `/api/experiments/${experiment.id}`, ALICE)).status).toBe(404);
    expect(await new ExperimentStore(served.kernel.store).cases(experiment.id)).toEqual([]);
    expect((await call(served, `/api/experiments/${experiment.id}`, ALICE, 'DELETE')).status).toBe(404);
  });

  it("an admin key deletes anyone's", async () => {
    const served = await serve();
    const experiment = await seedExperiment(served.kernel.store, refundCases(), { owner: 'bob' });
    expect((await call(served, `/api/experiments/${experiment.id}`, ADMIN, 'DELETE')).status).toBe(204);
    expect((await call(served, '/api/experiments', BOB)).body.experiments).toEqual([]);
  });
});

describe('erasing an owner', () => {
  it('deletes their experiments and cases, and leaves the others', async () => {
    const served = await serve();
    const store = served.kernel.store;
    const alices = [];
    // More than one list page of them.
    for (let i = 0; i < 3; i++) alices.push(await seedExperiment(store, refundCases(), { owner: 'alice' }));
    const bobs = await seedExperiment(store, refundCases(), { owner: 'bob' });
    const erased = await call(served, '/api/owners/alice', ADMIN, 'DELETE');
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ owner: 'alice', experiments: 3 });
    expect(
      (await call(served, '/api/experiments', ADMIN)).body.experiments.map((e: Experiment) => e.id),
    ).toEqual([bobs.id]);
    const experiments = new ExperimentStore(store);
    for (const experiment of alices) expect(await experiments.cases(experiment.id)).toEqual([]);
    expect(await experiments.cases(bobs.id)).toHaveLength(2);
  });
});

describe('on a SQLite file', () => {
  it('pages, scopes and erases experiments as on any store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hubos-experiments-'));
    const store = new SqliteStore(join(dir, 'hubos.db'));
    closers.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const served = await serve({ store });
    const mine: Experiment[] = [];
    for (let i = 0; i < 3; i++)
      mine.push(await seedExperiment(store, refundCases(), { owner: 'alice', createdAt: at(i) }));
    const bobs = await seedExperiment(store, refundCases(), { owner: 'bob', createdAt: at(5) });

    const first = await call(served, '/api/experiments?limit=2', ALICE);
    const second = await call(served, `/api/experiments?limit=2&after=${first.body.next}`, ALICE);
    expect([...first.body.experiments, ...second.body.experiments].map((e: Experiment) => e.id)).toEqual([
      mine[2]!.id,
      mine[1]!.id,
      mine[0]!.id,
    ]);
    expect(second.body.next).toBeUndefined();
    expect((await call(served, `/api/experiments/${bobs.id}`, ALICE)).status).toBe(404);
    expect((await call(served, `/api/experiments/${mine[0]!.id}`, ALICE)).body.cases).toHaveLength(2);

    expect((await call(served, '/api/owners/alice', ADMIN, 'DELETE')).body).toMatchObject({ experiments: 3 });
    expect(
      (await call(served, '/api/experiments', ADMIN)).body.experiments.map((e: Experiment) => e.id),
    ).toEqual([bobs.id]);
  });
});
