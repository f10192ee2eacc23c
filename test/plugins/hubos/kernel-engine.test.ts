// The run engine is the kernel's, one per kernel: the server plugin, a HubOS built by hand beside
// the kernel and the workflows all record their runs in `kernel.runs`; a HubOS registers the agents
// it serves there instead of building an engine. Only a HubOS on a store of its own (or without a
// kernel) keeps an engine of its own, on that store.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Kernel, type Principal, SqliteStore } from '../../../core/index.ts';
import hubos, { HubOS } from '../../../plugins/hubos/index.ts';
import workflows, { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { tempDir } from '../../helpers/run.ts';

const local: Principal = { id: 'local', kind: 'local' };
const kernels: Kernel[] = [];
const servers: HubOS[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

const echo = defineWorkflow({ name: 'echo', steps: [{ id: 'say', kind: 'function', run: () => 'said' }] });

async function boot() {
  const kernel = await bootKernel({
    store: new SqliteStore(join(await tempDir('hubos-kernel-engine-'), 'hubos.db')),
    plugins: [hubos(), workflows([echo])],
    config: {
      agents: {
        helper: { instructions: 'Help.', model: new ScriptedModel(['hi']) },
        // Internal: the server plugin does not serve it; a HubOS built by hand does, below.
        solo: { instructions: 'Alone.', model: new ScriptedModel(['solo here']), internal: true },
      },
    },
  });
  kernels.push(kernel);
  return kernel;
}

describe('one run engine per kernel', () => {
  it('the server, a HubOS built beside the kernel and the workflows record their runs in kernel.runs', async () => {
    const kernel = await boot();
    const beside = new HubOS({ kernel });
    servers.push(beside);
    expect(kernel.service('hubos').runs).toBe(kernel.runs);
    expect(beside.runs).toBe(kernel.runs);
    expect(kernel.service('workflows').get('echo')!.engine).toBe(kernel.runs);

    const run = await kernel.service('workflows').get('echo')!.run({}, { runId: 'wf-1' });
    expect(run.status).toBe('completed');
    // One engine, one table: the server lists the workflow run beside its agents' runs.
    expect((await kernel.service('hubos').runs.get('wf-1'))?.agent).toBe('workflow:echo');
  });

  it('runs a queued run of an agent only a HubOS built by hand serves, until that HubOS closes', async () => {
    const kernel = await boot();
    const beside = new HubOS({ kernel });
    beside.registerAgent('solo', kernel.agent('solo'));
    await kernel.runs.work(2);
    const queued = await kernel.runs.enqueue(kernel.agent('solo'), 'who is there?', { principal: local });
    expect(await kernel.runs.wait(queued.id)).toMatchObject({
      status: 'completed',
      result: { text: 'solo here' },
    });

    // Closed, it serves the agent no more: the engine (which its close drained) finds no one to run it.
    await beside.close();
    await kernel.runs.work(2);
    const orphan = await kernel.runs.enqueue(kernel.agent('solo'), 'anyone?', { principal: local });
    expect(await kernel.runs.wait(orphan.id)).toMatchObject({
      status: 'failed',
      error: { code: 'AGENT_NOT_FOUND', message: expect.stringContaining('serves no agent "solo"') },
    });
  });

  it('a HubOS on a store of its own keeps an engine of its own, on that store', async () => {
    const kernel = await boot();
    const store = new SqliteStore(join(await tempDir('hubos-own-store-'), 'own.db'));
    const own = new HubOS({ kernel, store });
    servers.push(own);
    expect(own.runs).not.toBe(kernel.runs);
    expect(own.runs.store).toBe(store);
    own.registerAgent('helper', kernel.agent('helper'));
    const record = await own.runs.start(kernel.agent('helper'), 'hello', { principal: local });
    expect((await own.runs.wait(record.id))?.status).toBe('completed');
    // Its runs are in its store alone.
    expect(await kernel.runs.get(record.id)).toBeUndefined();
  });
});
