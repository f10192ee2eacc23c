// GET /api/usage and a run's steps totals, on a real SQLite file: the tokens and cost of the
// caller's runs (an admin's: everyone's), by buckets and groups; another key's runs are not counted
// for a caller, and a query that makes no sense is a 400 that says what was wrong.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { ask, testTools } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'hubos-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);
const ADMIN = 'c'.repeat(32);
let files = 0;

/**
 * (A step names its model `provider:id`: prices are found by the id.)
 * A server on a SQLite file with three agents on three models: `mini` (built-in price of
 * gpt-4.1-mini, by its dated id), `house` (priced by the config) and `mystery` (no price).
 */
async function serve() {
  const mini = new ScriptedModel(
    Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? {
            toolCalls: [{ name: 'echo', input: { text: 'x' } }],
            usage: { inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 },
          }
        : { text: 'done', usage: { inputTokens: 2000, outputTokens: 50 } },
    ),
    { modelId: 'gpt-4.1-mini-2025-04-14' },
  );
  const house = new ScriptedModel(
    Array.from({ length: 5 }, () => ({ text: 'ok', usage: { inputTokens: 500_000, outputTokens: 0 } })),
    { modelId: 'house-model' },
  );
  const mystery = new ScriptedModel(
    Array.from({ length: 5 }, () => ({ text: '?', usage: { inputTokens: 7, outputTokens: 3 } })),
    { modelId: 'mystery-1' },
  );
  const kernel = await bootKernel({
    store: new SqliteStore(join(dir, `usage-${++files}.db`)),
    plugins: [testTools],
    config: {
      pricing: { 'house-model': { input: 2, output: 10 } },
      agents: {
        mini: { description: 'mini', model: mini, tools: ['echo'] },
        house: { description: 'house', model: house },
        mystery: { description: 'mystery', model: mystery },
      },
    },
  });
  const hubos = new HubOS({
    kernel,
    name: 'test',
    port: 0,
    rateLimit: false,
    apiKeys: [
      { key: ALICE, id: 'alice' },
      { key: BOB, id: 'bob' },
      { key: ADMIN, id: 'root', admin: true },
    ],
  });
  for (const name of ['mini', 'house', 'mystery']) hubos.registerAgent(name, kernel.agent(name));
  await hubos.init();
  closers.push(async () => {
    await hubos.close();
    await kernel.close();
  });
  return hubos;
}

/** A GET of `path` as the caller with `key`. */
const call = (hubos: HubOS, path: string, key: string) =>
  ask(hubos, 'GET', path, { headers: { authorization: `Bearer ${key}` } });

async function run(hubos: HubOS, key: string, agent: string): Promise<string> {
  const answer = await ask(hubos, 'POST', `/api/agents/${agent}/run`, {
    body: { input: 'go' },
    headers: { authorization: `Bearer ${key}` },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.runId as string;
}

// One run of `mini`: a tool call then an answer, 3000 in (400 cached) / 150 out; on gpt-4.1-mini
// (0.4 / 1.6 / 0.1 per 1M): 2600 × 0.4 + 400 × 0.1 + 150 × 1.6 = 1320 per 1M = $0.00132.
const MINI_RUN = { inputTokens: 3000, outputTokens: 150, cachedInputTokens: 400, cost: 0.00132 };
// One run of `house`: 500k in at the config's $2 per 1M = $1.
const HOUSE_RUN = { inputTokens: 500_000, outputTokens: 0, cachedInputTokens: 0, cost: 1 };

describe('GET /api/usage', () => {
  it("sums the caller's model calls, priced, in day buckets by model; another key's runs are not counted", async () => {
    const hubos = await serve();
    const before = Date.now();
    await run(hubos, ALICE, 'mini');
    await run(hubos, ALICE, 'mini');
    await run(hubos, ALICE, 'house');
    await run(hubos, BOB, 'mini');
    await run(hubos, BOB, 'mystery');

    const alice = await call(hubos, '/api/usage', ALICE);
    expect(alice.status, JSON.stringify(alice.body)).toBe(200);
    expect(alice.body.totals).toEqual({
      runs: 3,
      modelCalls: 5,
      inputTokens: 2 * MINI_RUN.inputTokens + HOUSE_RUN.inputTokens,
      outputTokens: 2 * MINI_RUN.outputTokens,
      cachedInputTokens: 800,
      cost: 1.00264,
    });
    expect(alice.body).toMatchObject({ bucket: 'day', by: 'model', unpricedModels: [] });
    // 30 days back by default: 31 day buckets (the first and last partial), empty ones included.
    expect(alice.body.buckets).toHaveLength(31);
    const today = alice.body.buckets.find((bucket: { modelCalls: number }) => bucket.modelCalls > 0);
    expect(today.start).toBe(`${new Date(before).toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(today.groups).toEqual([
      {
        group: 'scripted:gpt-4.1-mini-2025-04-14',
        runs: 2,
        modelCalls: 4,
        inputTokens: 6000,
        outputTokens: 300,
        cachedInputTokens: 800,
        cost: 0.00264,
      },
      { group: 'scripted:house-model', runs: 1, modelCalls: 1, ...HOUSE_RUN },
    ]);
    expect(alice.body.buckets[0]).toMatchObject({ runs: 0, modelCalls: 0, cost: 0, groups: [] });

    // Bob's: a model with no price has its tokens, no cost, and is named.
    const bob = await call(hubos, `/api/usage?from=${before}&bucket=hour&by=agent`, BOB);
    expect(bob.body.totals).toEqual({
      runs: 2,
      modelCalls: 3,
      inputTokens: 3007,
      outputTokens: 153,
      cachedInputTokens: 400,
      cost: 0.00132,
    });
    expect(bob.body.unpricedModels).toEqual(['scripted:mystery-1']);
    const groups = bob.body.buckets.flatMap((bucket: { groups: object[] }) => bucket.groups);
    expect(groups).toEqual([
      { group: 'mini', runs: 1, modelCalls: 2, ...MINI_RUN },
      {
        group: 'mystery',
        runs: 1,
        modelCalls: 1,
        inputTokens: 7,
        outputTokens: 3,
        cachedInputTokens: 0,
        cost: null,
      },
    ]);

    // The admin: everyone's, or one owner's; filtered by agent and via.
    const all = await call(hubos, '/api/usage?by=owner', ADMIN);
    expect(all.body.totals).toMatchObject({ runs: 5, modelCalls: 8 });
    expect(
      all.body.buckets
        .find((bucket: { modelCalls: number }) => bucket.modelCalls > 0)
        .groups.map((g: { group: string; runs: number }) => [g.group, g.runs]),
    ).toEqual([
      ['alice', 3],
      ['bob', 2],
    ]);
    expect((await call(hubos, '/api/usage?owner=bob&by=none', ADMIN)).body.totals).toMatchObject({ runs: 2 });
    const none = await call(hubos, '/api/usage?owner=bob&by=none', ADMIN);
    expect(none.body.buckets.at(-1).groups).toBeUndefined();
    expect((await call(hubos, '/api/usage?agent=mini&via=rest', ADMIN)).body.totals).toMatchObject({
      runs: 3,
      modelCalls: 6,
    });
    expect((await call(hubos, '/api/usage?agent=mini&via=cli', ADMIN)).body.totals).toMatchObject({
      runs: 0,
      cost: 0,
    });
    // A range before the runs: nothing.
    const earlier = await call(hubos, `/api/usage?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z`, ALICE);
    expect(earlier.body).toMatchObject({ from: '2020-01-01T00:00:00.000Z', to: '2020-01-02T00:00:00.000Z' });
    expect(earlier.body.totals.runs).toBe(0);
    expect(earlier.body.buckets).toHaveLength(1);
  });

  it('answers 400 USAGE_QUERY_INVALID naming what makes no sense', async () => {
    const hubos = await serve();
    for (const [query, says] of [
      ['bucket=week', 'bucket "week" is not one of hour, day'],
      ['by=tool', 'by "tool" is not one of model, agent, owner, none'],
      ['from=yesterday', 'from "yesterday" is not a time'],
      ['to=2026-13-45', 'to "2026-13-45" is not a time'],
      ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'must be before to'],
      ['from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&bucket=hour', 'or use bucket=day'],
      ['via=carrier-pigeon', 'via "carrier-pigeon" is not one of'],
      ['agent=a%20b', 'agent "a b" is not a name'],
      ['owner=bob', 'is for admin keys'],
    ]) {
      const answer = await call(hubos, `/api/usage?${query}`, ALICE);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe('USAGE_QUERY_INVALID');
      expect(answer.body.error.message).toContain(says);
    }
    // Its own id as owner is no error.
    expect((await call(hubos, '/api/usage?owner=alice', ALICE)).status).toBe(200);
  });
});

describe('GET /api/runs/:id/steps totals', () => {
  it("gives a run's and each model call's tokens and cost, and no cost for a model with no price", async () => {
    const hubos = await serve();
    const id = await run(hubos, ALICE, 'mini');
    const answer = await call(hubos, `/api/runs/${id}/steps`, ALICE);
    expect(answer.status).toBe(200);
    expect(answer.body.totals).toEqual(MINI_RUN);
    expect(answer.body.steps[0]).toMatchObject({
      kind: 'model',
      name: 'scripted:gpt-4.1-mini-2025-04-14',
      usage: { inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 },
      // 600 × 0.4 + 400 × 0.1 + 100 × 1.6 = 440 per 1M
      cost: 0.00044,
    });
    expect(answer.body.steps.find((step: { kind: string }) => step.kind === 'tool')).not.toHaveProperty(
      'cost',
    );
    const unknown = await run(hubos, ALICE, 'mystery');
    const unpriced = (await call(hubos, `/api/runs/${unknown}/steps`, ALICE)).body;
    expect(unpriced.steps[0]).not.toHaveProperty('cost');
    expect(unpriced.totals).toEqual({
      inputTokens: 7,
      outputTokens: 3,
      cachedInputTokens: 0,
      cost: null,
      unpricedModels: ['scripted:mystery-1'],
    });
  });
});
