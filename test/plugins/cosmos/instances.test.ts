import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Bus, HubosError, LocalBus, SqliteStore } from '../../../core/index.ts';
import { COSMOS_NAMESPACE, type CosmosConfig, getCosmosHooks } from '../../../plugins/cosmos/index.ts';
import hubos from '../../../plugins/hubos/index.ts';
import type { ScriptStep } from '../../../testing/index.ts';
import { bootCosmos, sharedLocalBus, until } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'cosmos-instances-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Kernels standing for instances: one SQLite file (a store object each, as processes have) and one bus. */
function instances(
  count: number,
  cosmos: CosmosConfig,
  bus: Bus = new LocalBus(),
  script: ScriptStep[] = [],
) {
  const file = join(dir, `${randomUUID()}.db`);
  const boot = () =>
    bootCosmos({
      cosmos,
      script,
      plugins: [hubos({ port: 0, rateLimit: false })],
      kernel: { store: new SqliteStore(file), bus },
    });
  return { boot, all: Promise.all(Array.from({ length: count }, boot)) };
}

function codes(results: PromiseSettledResult<unknown>[]): string[] {
  return results
    .filter((result) => result.status === 'rejected')
    .map((result) => (HubosError.is(result.reason) ? result.reason.code : String(result.reason)));
}

describe('Cosmos on instances sharing a store', () => {
  it('holds maxAgents exactly: 20 concurrent creates over two instances make 5', async () => {
    const [a, b] = await instances(2, { maxAgents: 5, persist: true }).all;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a! : b!).cosmos.create({ agentId: `agent-${i}`, templateId: 'worker' }),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    expect(new Set(codes(results))).toEqual(new Set(['COSMOS_FULL']));
    expect(await a!.kernel.store.list(COSMOS_NAMESPACE)).toHaveLength(5);
    expect(a!.cosmos.size + b!.cosmos.size).toBe(5);

    // A delete on one frees a slot for either.
    const [first] = a!.cosmos.size > 0 ? a!.cosmos.list() : b!.cosmos.list();
    await (a!.cosmos.has(first!.id) ? a! : b!).cosmos.delete(first!.id);
    await b!.cosmos.create({ agentId: 'late', templateId: 'worker' });
    await expect(a!.cosmos.create({ agentId: 'later', templateId: 'worker' })).rejects.toThrow(/full/);
    expect(await a!.kernel.store.list(COSMOS_NAMESPACE)).toHaveLength(5);
  });

  it('gives one id to one instance', async () => {
    const [a, b] = await instances(2, { persist: true }).all;
    const results = await Promise.allSettled([
      a!.cosmos.create({ agentId: 'same', templateId: 'worker' }),
      b!.cosmos.create({ agentId: 'same', templateId: 'writer' }),
    ]);
    expect(codes(results)).toEqual(['AGENT_EXISTS']);
    expect(await a!.kernel.store.list(COSMOS_NAMESPACE)).toEqual(['same']);
  });

  it("frees the slot of an instance that died mid-create, and takes over a dead holder's lock", async () => {
    const [a] = await instances(1, { maxAgents: 2, persist: true }).all;
    const store = a!.kernel.store;
    const claim = (id: string, expiresAt: number) =>
      store.set('cosmos:claims', id, { agentId: id, holder: 'another', expiresAt });
    await claim('died-midway', Date.now() - 1);
    await claim('under-way', Date.now() + 60_000);
    await store.set('cosmos:locks', 'create', { holder: 'died', expiresAt: Date.now() - 1 });

    await a!.cosmos.create({ agentId: 'one', templateId: 'worker' });
    // The live claim holds its slot: 2 of 2.
    await expect(a!.cosmos.create({ agentId: 'two', templateId: 'worker' })).rejects.toThrow(/full/);
    expect(await store.list(COSMOS_NAMESPACE)).toEqual(['one']);
    expect(await store.list('cosmos:claims')).toEqual(['under-way']);
  });
  it('counts the store again when its tally is lost or says full; a definition of a gone template holds no slot', async () => {
    const [a] = await instances(1, { maxAgents: 2, persist: true }).all;
    const store = a!.kernel.store;
    await store.set(COSMOS_NAMESPACE, 'orphan', {
      agentId: 'orphan',
      templateId: 'removed',
      overrides: {},
      createdAt: 1,
    });
    // A tally that says full (as one left by instances with other templates could).
    await store.set('cosmos:locks', 'create', { holder: '', expiresAt: 0, data: { definitions: 5 } });
    await a!.cosmos.create({ agentId: 'one', templateId: 'worker' });
    await a!.cosmos.create({ agentId: 'two', templateId: 'worker' });
    await expect(a!.cosmos.create({ agentId: 'three', templateId: 'worker' })).rejects.toThrow(/full/);
    expect(await store.get('cosmos:locks', 'create')).toEqual({
      holder: '',
      expiresAt: 0,
      data: { definitions: 3 },
    });
    await a!.cosmos.delete('one');
    expect(await store.get('cosmos:locks', 'create')).toMatchObject({ data: { definitions: 2 } });
    await a!.cosmos.create({ agentId: 'three', templateId: 'worker' });
  });
});

describe('Cosmos on a shared bus', () => {
  it('serves an agent created on one instance on the others, and a delete reaches them all', async () => {
    const setup = instances(2, {}, sharedLocalBus(), ['Hello from b.']);
    const [a, b] = await setup.all;
    const destroyed: string[] = [];
    getCosmosHooks(a!.kernel).destroyed.tap('test', ({ reason }) => {
      destroyed.push(reason);
    });
    await a!.cosmos.create({
      agentId: 'roamer',
      templateId: 'worker',
      instructions: 'Be brief.',
      owner: 'ann',
    });
    await until(() => b!.cosmos.has('roamer'));
    expect(b!.cosmos.get('roamer')!.spec.instructions).toBe('Be brief.');
    expect(b!.cosmos.ownerOf('roamer')).toBe('ann');

    const url = await b!.kernel.service('hubos').serve();
    const response = await fetch(`${url}/api/agents/roamer/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Hi' }),
    });
    expect(response.status).toBe(200);
    expect(b!.model.requests[0]!.system).toBe('Be brief.');

    // An instance started later builds it too (a shared bus keeps definitions even without persist).
    const c = await setup.boot();
    expect(c.cosmos.has('roamer')).toBe(true);

    await b!.cosmos.delete('roamer');
    await until(() => !a!.cosmos.has('roamer') && !c.cosmos.has('roamer'));
    expect(destroyed).toEqual(['deleted']);
    expect(await a!.kernel.store.list(COSMOS_NAMESPACE)).toEqual([]);
  });

  it('judges idleness from the runs of every instance', async () => {
    const [a, b] = await instances(2, { idleTtlMs: 60_000 }, sharedLocalBus(), ['ok']).all;
    await a!.cosmos.create({ agentId: 'busy', templateId: 'worker' });
    await until(() => b!.cosmos.has('busy'));
    const before = a!.cosmos.info('busy')!.lastActiveAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await b!.cosmos.get('busy')!.run('Hi');
    await until(() => a!.cosmos.info('busy')!.lastActiveAt !== before);
    // Idle a minute since b's run, not since a's create: then evicted everywhere.
    expect(await a!.cosmos.evictIdle(Date.now() + 59_000)).toEqual([]);
    expect(await a!.cosmos.evictIdle(Date.now() + 61_000)).toEqual(['busy']);
    await until(() => !b!.cosmos.has('busy'));
    expect(b!.cosmos.stats().totals.evicted).toBe(1);
  });
});
