import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HubosError, type Kernel } from '../../core/index.ts';
import cosmos, { COSMOS_NAMESPACE } from '../../plugins/cosmos/index.ts';
import hubos from '../../plugins/hubos/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../testing/index.ts';
import { DATABASE_URL, REDIS_URL, uniqueName } from './env.ts';

// Instances of one service: kernels on one PostgreSQL schema and one Redis prefix, dropped at the end.
const SCHEMA = uniqueName('cosmos_instances');
const PREFIX = uniqueName('cosmos_instances');

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

afterAll(async () => {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  } finally {
    await admin.end();
  }
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
});

/** One instance; `test` names the service (its own key prefix), so each test starts empty. */
async function instance(test: string, maxAgents: number, script: ScriptStep[] = []) {
  const model = new ScriptedModel(script);
  const kernel = await bootKernel({
    store: undefined,
    plugins: [cosmos(), hubos({ port: 0, rateLimit: false })],
    config: {
      store: { driver: 'postgres', url: DATABASE_URL, schema: SCHEMA },
      bus: { driver: 'redis', url: REDIS_URL, prefix: `${PREFIX}_${test}` },
      cosmos: { maxAgents },
      agents: { worker: { instructions: 'Work.', model } },
    },
  });
  kernels.push(kernel);
  return { kernel, model, cosmos: kernel.service('cosmos') };
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('Cosmos on PostgreSQL and Redis', () => {
  it('honours maxAgents exactly under concurrent creates on three instances; each serves all', async () => {
    const all = await Promise.all([instance('full', 5), instance('full', 5), instance('full', 5)]);
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        all[i % 3]!.cosmos.create({ agentId: `full-${i}`, templateId: 'worker' }),
      ),
    );
    const created = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected');
    expect(created).toHaveLength(5);
    for (const result of refused)
      expect(HubosError.is(result.reason) && result.reason.code).toBe('COSMOS_FULL');
    const stored = (await all[0]!.kernel.store.list(COSMOS_NAMESPACE)).filter((id) => id.startsWith('full-'));
    expect(stored).toHaveLength(5);
    // Each instance learns of the others' agents.
    await until(() => all.every(({ cosmos }) => cosmos.size === 5));
    for (const { cosmos } of all)
      expect(
        cosmos
          .list()
          .map((agent) => agent.id)
          .sort(),
      ).toEqual(stored.sort());
    for (const id of stored) await all[0]!.cosmos.delete(id);
    await until(() => all.every(({ cosmos }) => cosmos.size === 0));
  });

  it('serves an agent created on one instance from another; a delete on a third reaches all', async () => {
    const a = await instance('serve', 10);
    const b = await instance('serve', 10, ['Served by b.']);
    const c = await instance('serve', 10);
    await a.cosmos.create({ agentId: 'roamer', templateId: 'worker', instructions: 'Be brief.' });
    await until(() => b.cosmos.has('roamer') && c.cosmos.has('roamer'));
    const url = await b.kernel.service('hubos').serve();
    const response = await fetch(`${url}/api/agents/roamer/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Hi' }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { text: string }).text).toBe('Served by b.');
    expect(b.model.requests[0]!.system).toBe('Be brief.');

    await c.cosmos.delete('roamer');
    await until(() => !a.cosmos.has('roamer') && !b.cosmos.has('roamer'));
    expect(await a.kernel.store.list(COSMOS_NAMESPACE)).not.toContain('roamer');
  });
});
