// The runs a caller can find and forget: GET /api/runs by pages and filters, a run's steps, and
// DELETE; each key sees its own runs only (an admin key everyone's), and nonsense is a 400.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord, RunStep } from '../../../core/index.ts';
import { buildHelper, type Built as Served } from './helpers.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);
const ADMIN = 'c'.repeat(32);
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

async function serve(script: Parameters<typeof buildHelper>[0]): Promise<Served> {
  const served = await buildHelper(script, {
    apiKeys: [
      { key: ALICE, id: 'alice' },
      { key: BOB, id: 'bob' },
      { key: ADMIN, id: 'root', admin: true },
    ],
  });
  closers.push(served.close);
  return served;
}

/** The route logic through the app itself: no socket needed. */
async function call(served: Served, path: string, key: string, init: RequestInit = {}) {
  const response = await served.hubos.app.request(path, {
    ...init,
    headers: { ...auth(key), ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function run(served: Served, key: string, input: string, sessionId?: string): Promise<string> {
  const answer = await call(served, '/api/agents/helper/run', key, {
    method: 'POST',
    body: JSON.stringify({ input, ...(sessionId ? { sessionId } : {}) }),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.runId as string;
}

describe('GET /api/runs', () => {
  it("lists the caller's runs newest first, by pages that meet end to end", async () => {
    const served = await serve(Array.from({ length: 7 }, (_, i) => `answer ${i}`));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await run(served, ALICE, `question ${i}`, i < 2 ? 's1' : undefined));
    await run(served, BOB, 'bob asks');
    const first = await call(served, '/api/runs?limit=2', ALICE);
    expect(first.status).toBe(200);
    expect(first.body.runs.map((r: RunRecord) => r.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.runs[0]).toMatchObject({ status: 'completed', owner: 'alice', input: 'question 4' });
    // A list leaves each run's transcript out: GET /api/runs/:id has it.
    expect(first.body.runs[0].result).toBeUndefined();
    const second = await call(served, `/api/runs?limit=2&cursor=${first.body.nextCursor}`, ALICE);
    const third = await call(served, `/api/runs?limit=2&cursor=${second.body.nextCursor}`, ALICE);
    expect([...second.body.runs, ...third.body.runs].map((r: RunRecord) => r.id)).toEqual([
      ids[2],
      ids[1],
      ids[0],
    ]);
    expect(third.body.nextCursor).toBeUndefined();

    // Bob sees his one run; the admin key sees all six.
    expect((await call(served, '/api/runs', BOB)).body.runs).toHaveLength(1);
    expect((await call(served, '/api/runs', ADMIN)).body.runs).toHaveLength(6);
    expect(
      (await call(served, '/api/runs?sessionId=s1', ALICE)).body.runs.map((r: RunRecord) => r.id),
    ).toEqual([ids[1], ids[0]]);
    expect((await call(served, '/api/runs?sessionId=s1', BOB)).body.runs).toEqual([]);
  });

  it('filters by agent, status, via and time', async () => {
    const served = await serve(['one', 'two']);
    const before = Date.now();
    const id = await run(served, ALICE, 'first');
    const after = new Date(Date.now() + 1).toISOString();
    const ids = async (query: string) =>
      ((await call(served, `/api/runs?${query}`, ALICE)).body.runs as RunRecord[]).map((r) => r.id);
    expect(await ids('agent=helper&status=completed&via=rest')).toEqual([id]);
    expect(await ids('agent=other')).toEqual([]);
    expect(await ids('status=running')).toEqual([]);
    expect(await ids('via=mcp')).toEqual([]);
    expect(await ids(`since=${before}`)).toEqual([id]);
    expect(await ids(`until=${encodeURIComponent(after)}`)).toEqual([id]);
    expect(await ids(`since=${encodeURIComponent(after)}`)).toEqual([]);
    expect(await ids(`until=${before - 1000}`)).toEqual([]);
  });

  it("searches the caller's runs by their input with q, with the other filters and by pages", async () => {
    const served = await serve(['a', 'b', 'c', 'd']);
    const trip = await run(served, ALICE, 'Plan a TRIP: 50% off_peak');
    const other = await run(served, ALICE, 'something else');
    const trip2 = await run(served, ALICE, 'another trip');
    await run(served, BOB, 'bob plans a trip');
    const ids = async (query: string, key = ALICE) =>
      ((await call(served, `/api/runs?${query}`, key)).body.runs as RunRecord[]).map((r) => r.id);
    expect(await ids('q=trip')).toEqual([trip2, trip]);
    expect(await ids(`q=${encodeURIComponent('50% off_')}`)).toEqual([trip]);
    expect(await ids(`q=${encodeURIComponent('%')}`)).toEqual([trip]);
    expect(await ids('q=else&status=completed&agent=helper')).toEqual([other]);
    expect(await ids('q=trip&status=failed')).toEqual([]);
    const first = await call(served, '/api/runs?q=trip&limit=1', ALICE);
    const second = await call(served, `/api/runs?q=trip&limit=1&cursor=${first.body.nextCursor}`, ALICE);
    expect([...first.body.runs, ...second.body.runs].map((r: RunRecord) => r.id)).toEqual([trip2, trip]);
    // Bob's trip is not Alice's to find; the admin finds all three.
    expect(await ids('q=bob')).toEqual([]);
    expect(await ids('q=TRIP', ADMIN)).toHaveLength(3);
  });

  it('answers a filter, limit or cursor that makes no sense with a 400 that says which', async () => {
    const served = await serve([]);
    for (const [query, says] of [
      ['limit=0', 'limit "0"'],
      ['limit=201', 'limit "201"'],
      ['limit=ten', 'limit "ten"'],
      ['status=done', 'status "done" is not one of queued, running'],
      ['via=fax', 'via "fax"'],
      ['since=yesterday', 'since "yesterday" is not a time'],
      ['cursor=not-a-cursor', 'cursor "not-a-cursor" is not one this server gave'],
      [`cursor=${Buffer.from('r1:../../etc').toString('base64url')}`, 'is not one this server gave'],
      [`agent=${'x'.repeat(300)}`, 'agent "'],
      ['q=', 'q is 0 characters long'],
      [`q=${'x'.repeat(201)}`, 'q is 201 characters long'],
      ['q=%00', 'NUL'],
    ] as const) {
      const answer = await call(served, `/api/runs?${query}`, ALICE);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code, query).toBe('RUN_QUERY_INVALID');
      expect(answer.body.error.message, query).toContain(says);
    }
  });
});

describe('GET /api/runs/:id/steps', () => {
  it("gives a run's model and tool calls in order, with timings and usage, to its owner only", async () => {
    const served = await serve([{ toolCalls: [{ name: 'echo', input: { text: 'a' } }] }, 'done']);
    const id = await run(served, ALICE, 'go');
    const answer = await call(served, `/api/runs/${id}/steps`, ALICE);
    expect(answer.status).toBe(200);
    const steps = answer.body.steps as RunStep[];
    expect(steps.map((step) => [step.seq, step.kind, step.name, step.step, step.status])).toEqual([
      [1, 'model', expect.any(String), 1, 'ok'],
      [2, 'tool', 'echo', 1, 'ok'],
      [3, 'model', expect.any(String), 2, 'ok'],
    ]);
    expect(steps[0]).toMatchObject({ finishReason: 'tool-calls', usage: expect.any(Object) });
    expect(steps[1]!.callId).toBeDefined();
    for (const step of steps) expect(step.durationMs).toBeGreaterThanOrEqual(0);
    expect((await call(served, `/api/runs/${id}/steps`, BOB)).status).toBe(404);
    expect((await call(served, `/api/runs/${id}/steps`, ADMIN)).status).toBe(200);
    expect((await call(served, '/api/runs/nope/steps', ALICE)).status).toBe(404);
  });
});

describe('DELETE /api/runs/:id', () => {
  it('forgets an ended run and its steps; a running one is a 409, another key gets 404', async () => {
    const served = await serve(['done', { toolCalls: [{ name: 'wait' }] }, 'never']);
    const id = await run(served, ALICE, 'go');
    expect((await call(served, `/api/runs/${id}`, BOB, { method: 'DELETE' })).status).toBe(404);
    expect((await call(served, `/api/runs/${id}`, ALICE, { method: 'DELETE' })).status).toBe(204);
    expect((await call(served, `/api/runs/${id}`, ALICE)).status).toBe(404);
    expect((await call(served, `/api/runs/${id}/steps`, ALICE)).status).toBe(404);
    expect((await call(served, '/api/runs', ALICE)).body.runs).toEqual([]);

    const started = await call(served, '/api/agents/helper/run?async=true', ALICE, {
      method: 'POST',
      body: JSON.stringify({ input: 'wait' }),
    });
    const waiting = started.body.runId as string;
    const refused = await call(served, `/api/runs/${waiting}`, ALICE, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'RUN_ACTIVE' });
    expect(refused.body.error.message).toContain('cancel it first');
    await call(served, `/api/runs/${waiting}/cancel`, ALICE, { method: 'POST', body: '{}' });
  });
});

describe('a run another key or nobody has', () => {
  it('is a 404 RUN_NOT_FOUND on every route of a run, JSON before any stream opens', async () => {
    const served = await serve(['done']);
    const id = await run(served, ALICE, 'go');
    const routes: [string, string][] = [
      ['GET', ''],
      ['GET', '/steps'],
      ['GET', '/events'],
      ['POST', '/cancel'],
      ['DELETE', ''],
    ];
    for (const [method, tail] of routes) {
      for (const [key, runId] of [
        [BOB, id],
        [ALICE, 'no-such-run'],
      ] as const) {
        const answer = await call(served, `/api/runs/${runId}${tail}`, key, { method });
        expect([method, tail, answer.status, answer.body.error.code]).toEqual([
          method,
          tail,
          404,
          'RUN_NOT_FOUND',
        ]);
      }
    }
    // The owner still has it, untouched.
    expect((await call(served, `/api/runs/${id}`, ALICE)).body.status).toBe('completed');
  });
});
