import { describe, expect, it } from 'vitest';
import { HubosError } from '../../../core/index.ts';
import { Cosmos, getCosmosHooks } from '../../../plugins/cosmos/index.ts';
import { bootKernel } from '../../../testing/index.ts';
import { bootCosmos, until } from './helpers.ts';

async function rejection(promise: Promise<unknown>): Promise<HubosError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!HubosError.is(error)) throw new Error(`expected a HubosError, got ${String(error)}`);
  return error;
}

describe('Cosmos API', () => {
  it('creates agents from templates with overrides; get, has, list, delete', async () => {
    const { kernel, cosmos } = await bootCosmos();
    const agent = await cosmos.create({
      agentId: 'w-1',
      templateId: 'writer',
      instructions: 'Write briefly.',
      tools: [],
      metadata: { owner: 'ann' },
    });
    expect(agent.id).toBe('w-1');
    expect(agent.spec.instructions).toBe('Write briefly.');
    expect(agent.spec.description).toBe('A writer');
    expect(agent.spec.metadata).toEqual({ team: 'docs', owner: 'ann', cosmos: { template: 'writer' } });
    expect(kernel.getAgent('w-1')).toBe(agent);
    await cosmos.create({}, { agentId: 'w-2', templateId: 'worker' });
    await cosmos.create(undefined, { agentId: 'x-1', templateId: 'worker' });

    expect(cosmos.get('w-1')).toBe(agent);
    expect(cosmos.get('nope')).toBeUndefined();
    expect(cosmos.has('w-2')).toBe(true);
    // Configured agents are templates' instances of the kernel, not Cosmos's.
    expect(cosmos.has('worker')).toBe(false);
    expect(cosmos.list().map((a) => a.id)).toEqual(['w-1', 'w-2', 'x-1']);
    expect(cosmos.list('w-').map((a) => a.id)).toEqual(['w-1', 'w-2']);
    expect(cosmos.list('z')).toEqual([]);

    expect(await cosmos.delete('w-1')).toBe(true);
    expect(await cosmos.delete('w-1')).toBe(false);
    expect(cosmos.has('w-1')).toBe(false);
    expect(kernel.getAgent('w-1')).toBeUndefined();
  });

  it('fails with AGENT_EXISTS, TEMPLATE_NOT_FOUND and COSMOS_FULL (stating the limit), and a delete frees a slot', async () => {
    const { cosmos } = await bootCosmos({ cosmos: { maxAgents: 2 } });
    await cosmos.create({ agentId: 'a', templateId: 'worker' });
    expect((await rejection(cosmos.create({ agentId: 'a', templateId: 'worker' }))).code).toBe(
      'AGENT_EXISTS',
    );
    // A configured agent's name is taken too.
    expect((await rejection(cosmos.create({ agentId: 'worker', templateId: 'worker' }))).code).toBe(
      'AGENT_EXISTS',
    );
    const missing = await rejection(cosmos.create({ agentId: 'b', templateId: 'ghost' }));
    expect(missing.code).toBe('TEMPLATE_NOT_FOUND');
    expect(missing.message).toContain('worker, writer');
    expect((await rejection(cosmos.create({ agentId: 'bad id!', templateId: 'worker' }))).code).toBe(
      'AGENT_INVALID',
    );
    await cosmos.create({ agentId: 'b', templateId: 'worker' });
    const full = await rejection(cosmos.create({ agentId: 'c', templateId: 'worker' }));
    expect(full.code).toBe('COSMOS_FULL');
    expect(full.message).toContain('2');
    expect(full.details.maxAgents).toBe(2);
    await cosmos.delete('a');
    await cosmos.create({ agentId: 'c', templateId: 'worker' });
    expect(cosmos.list().map((a) => a.id)).toEqual(['b', 'c']);
  });

  it('holds maxAgents under concurrency: 1,000 concurrent creates against 100 create exactly 100', async () => {
    const { kernel, cosmos } = await bootCosmos({ cosmos: { maxAgents: 100 } });
    const results = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, i) => cosmos.create({ agentId: `agent-${i}`, templateId: 'worker' })),
    );
    const created = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(created).toHaveLength(100);
    expect(failed).toHaveLength(900);
    for (const { reason } of failed) {
      expect(HubosError.is(reason, 'COSMOS_FULL')).toBe(true);
      expect((reason as Error).message).toContain('100');
    }
    expect(cosmos.list()).toHaveLength(100);
    expect(cosmos.stats().count).toBe(100);
    // The kernel holds those 100 plus the two configured agents.
    expect(kernel.listAgents()).toHaveLength(102);
  });

  it('concurrent creates of one id create it once', async () => {
    const { cosmos } = await bootCosmos();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => cosmos.create({ agentId: 'same', templateId: 'worker' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[])
      expect(HubosError.is(r.reason, 'AGENT_EXISTS')).toBe(true);
  });

  it('reports stats: capacity, counts by template and state, totals, per-agent runs and usage', async () => {
    const { cosmos } = await bootCosmos({
      cosmos: { maxAgents: 10 },
      script: [
        { text: 'one', usage: { inputTokens: 10, outputTokens: 2 } },
        { text: 'two', usage: { inputTokens: 5, outputTokens: 1 } },
        { text: 'slow', delayMs: 10_000 },
      ],
    });
    const a = await cosmos.create({ agentId: 'a', templateId: 'worker' });
    await cosmos.create({ agentId: 'b', templateId: 'writer' });
    await cosmos.create({ agentId: 'c', templateId: 'writer' });
    const before = Date.parse(cosmos.info('a')!.lastActiveAt);
    await a.run('first');
    await a.run('second');
    await cosmos.delete('c');

    let stats = cosmos.stats();
    expect(stats.capacity).toBe(10);
    expect(stats.count).toBe(2);
    expect(stats.byTemplate).toEqual({ worker: 1, writer: 1 });
    expect(stats.byState).toEqual({ idle: 2, running: 0 });
    expect(stats.totals).toEqual({ created: 3, deleted: 1, evicted: 0 });
    const info = stats.agents.find((agent) => agent.id === 'a')!;
    expect(info).toMatchObject({ template: 'worker', state: 'idle', runs: 2 });
    expect(info.usage).toMatchObject({ inputTokens: 15, outputTokens: 3 });
    expect(Date.parse(info.createdAt)).toBeLessThanOrEqual(Date.parse(info.lastActiveAt));
    expect(Date.parse(info.lastActiveAt)).toBeGreaterThanOrEqual(before);

    const b = cosmos.get('b')!;
    const running = b.run('slow');
    await until(() => cosmos.info('b')?.state === 'running');
    stats = cosmos.stats();
    expect(stats.byState).toEqual({ idle: 1, running: 1 });
    await cosmos.delete('b');
    expect((await running).status).toBe('cancelled');
  });

  it('deleting an agent cancels its running run, fires the destroy hooks and frees its slot', async () => {
    const { kernel, cosmos } = await bootCosmos({
      cosmos: { maxAgents: 1 },
      script: [{ delayMs: 10_000, text: 'x' }],
    });
    const seen: string[] = [];
    kernel.hooks.agentDestroy.tap('test', ({ agent }) => {
      seen.push(`kernel:${agent.id}`);
    });
    getCosmosHooks(kernel).destroyed.tap('test', ({ agent, reason }) => {
      seen.push(`cosmos:${agent.id}:${reason}:${agent.state}`);
    });
    const agent = await cosmos.create({ agentId: 'busy', templateId: 'worker' });
    const run = agent.run('work');
    await until(() => cosmos.info('busy')?.state === 'running');
    expect(await cosmos.delete('busy')).toBe(true);
    const result = await run;
    expect(result.status).toBe('cancelled');
    expect(seen.sort()).toEqual(['cosmos:busy:deleted:running', 'kernel:busy']);
    await cosmos.create({ agentId: 'next', templateId: 'worker' });
  });

  it('fires spawn (which may change the spec), spawned, destroyed; an agent destroyed through the kernel leaves Cosmos', async () => {
    const { kernel, cosmos } = await bootCosmos();
    const hooks = getCosmosHooks(kernel);
    const events: string[] = [];
    hooks.spawn.tap('test', (context) => {
      events.push(`spawn:${context.agentId}:${context.templateId}:${String(context.ctx.by)}`);
      context.spec.description = 'changed';
    });
    hooks.spawned.tap('test', ({ agent }) => {
      events.push(`spawned:${agent.id}:${agent.template}`);
    });
    hooks.destroyed.tap('test', ({ agent, reason }) => {
      events.push(`destroyed:${agent.id}:${reason}`);
    });
    const agent = await cosmos.create({ by: 'test' }, { agentId: 'h', templateId: 'writer' });
    expect(agent.spec.description).toBe('changed');
    await kernel.destroyAgent('h');
    expect(cosmos.has('h')).toBe(false);
    expect(events).toEqual(['spawn:h:writer:test', 'spawned:h:writer', 'destroyed:h:destroyed']);
    expect(cosmos.stats().totals.deleted).toBe(1);
  });

  it('a spawn tap that throws refuses the agent and releases its slot', async () => {
    const { kernel, cosmos } = await bootCosmos({ cosmos: { maxAgents: 1 } });
    let refuse = true;
    getCosmosHooks(kernel).spawn.tap('test', () => {
      if (refuse) throw new Error('no');
    });
    await expect(cosmos.create({ agentId: 'r', templateId: 'worker' })).rejects.toThrow('no');
    refuse = false;
    await cosmos.create({ agentId: 'r', templateId: 'worker' });
    expect(cosmos.has('r')).toBe(true);
  });

  it('evicts agents idle for idleTtlMs, never a running one', async () => {
    const { kernel, cosmos } = await bootCosmos({
      cosmos: { idleTtlMs: 60 },
      script: [{ delayMs: 10_000, text: 'x' }],
    });
    const evicted: string[] = [];
    getCosmosHooks(kernel).evicted.tap('test', ({ agent, idleMs }) => {
      evicted.push(agent.id);
      expect(idleMs).toBeGreaterThanOrEqual(60);
    });
    await cosmos.create({ agentId: 'idle', templateId: 'worker' });
    const busy = await cosmos.create({ agentId: 'busy', templateId: 'worker' });
    const run = busy.run('long');
    await until(() => cosmos.info('busy')?.state === 'running');
    await until(() => !cosmos.has('idle'));
    expect(evicted).toEqual(['idle']);
    expect(kernel.getAgent('idle')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(cosmos.has('busy')).toBe(true);
    expect(cosmos.stats().totals).toMatchObject({ evicted: 1, deleted: 0 });
    await cosmos.delete('busy');
    await run;
  });

  it('the kernel closing destroys every agent and stops Cosmos', async () => {
    const { kernel, cosmos } = await bootCosmos({ cosmos: { idleTtlMs: 1_000 } });
    const reasons: string[] = [];
    getCosmosHooks(kernel).destroyed.tap('test', ({ reason }) => {
      reasons.push(reason);
    });
    await cosmos.create({ agentId: 'a', templateId: 'worker' });
    await cosmos.create({ agentId: 'b', templateId: 'worker' });
    await kernel.close();
    expect(reasons).toEqual(['close', 'close']);
    expect(cosmos.list()).toEqual([]);
    expect((await rejection(cosmos.create({ agentId: 'c', templateId: 'worker' }))).code).toBe(
      'KERNEL_STATE',
    );
  });

  it('works standalone: new Cosmos({ dependencies: kernel }) defaults to 50 agents', async () => {
    const kernel = await bootKernel({
      config: { agents: { t: { model: 'offline' } } },
      plugins: [(await import('../../../plugins/models/offline.ts')).default()],
    });
    try {
      const cosmos = new Cosmos({ dependencies: kernel });
      expect(cosmos.maxAgents).toBe(50);
      await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) => cosmos.create({ agentId: `s${i}`, templateId: 't' })),
      );
      expect(cosmos.stats().count).toBe(50);
      expect(() => new Cosmos({ dependencies: kernel, maxAgents: 0 })).toThrow(/maxAgents/);
    } finally {
      await kernel.close();
    }
  });
});
