import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SqliteStore } from '../../../core/index.ts';
import cosmos, { COSMOS_NAMESPACE } from '../../../plugins/cosmos/index.ts';
import hubos from '../../../plugins/hubos/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'cosmos-persist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function boot(file: string, script: ScriptStep[], persist = true) {
  const model = new ScriptedModel(script);
  return bootKernel({
    store: new SqliteStore(file),
    plugins: [cosmos(), hubos({ port: 0, rateLimit: false })],
    config: { cosmos: { persist }, agents: { worker: { instructions: 'Work.', model } } },
  }).then((kernel) => ({ kernel, model }));
}

it('keeps definitions in the store and restores them at startup; their sessions continue', async () => {
  const file = join(dir, 'one.db');
  const first = await boot(file, ['Noted: the code is 42.']);
  const cosmos1 = first.kernel.service('cosmos');
  const agent = await cosmos1.create({
    agentId: 'keeper',
    templateId: 'worker',
    instructions: 'Remember things.',
  });
  await cosmos1.create({ agentId: 'gone', templateId: 'worker' });
  await cosmos1.delete('gone');
  await agent.run('The code is 42.', { sessionId: 's1' });
  expect(await first.kernel.store.list(COSMOS_NAMESPACE)).toEqual(['keeper']);
  await first.kernel.close();

  const second = await boot(file, ['It is 42.']);
  try {
    const cosmos2 = second.kernel.service('cosmos');
    expect(cosmos2.list().map((a) => a.id)).toEqual(['keeper']);
    const restored = cosmos2.get('keeper')!;
    expect(restored.spec.instructions).toBe('Remember things.');
    expect(cosmos2.info('keeper')!.template).toBe('worker');
    // Served like any agent, and its session goes on where it was.
    const url = await second.kernel.service('hubos').serve();
    const response = await fetch(`${url}/api/agents/keeper/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'What is the code?', sessionId: 's1' }),
    });
    expect(response.status).toBe(200);
    const request = second.model.requests[0]!;
    expect(request.system).toBe('Remember things.');
    const texts = request.messages.map((m) => JSON.stringify(m));
    expect(texts.some((t) => t.includes('The code is 42.'))).toBe(true);
    expect(texts.some((t) => t.includes('Noted: the code is 42.'))).toBe(true);

    // Deleting removes the definition.
    await cosmos2.delete('keeper');
    expect(await second.kernel.store.list(COSMOS_NAMESPACE)).toEqual([]);
  } finally {
    await second.kernel.close();
  }
});

it('without persist nothing is stored; a definition whose template is gone is skipped and kept', async () => {
  const file = join(dir, 'two.db');
  const first = await boot(file, [], false);
  await first.kernel.service('cosmos').create({ agentId: 'temp', templateId: 'worker' });
  expect(await first.kernel.store.list(COSMOS_NAMESPACE)).toEqual([]);
  await first.kernel.store.set(COSMOS_NAMESPACE, 'orphan', {
    agentId: 'orphan',
    templateId: 'removed',
    overrides: {},
    createdAt: 1,
  });
  await first.kernel.close();

  const second = await boot(file, []);
  try {
    expect(second.kernel.service('cosmos').list()).toEqual([]);
    expect(await second.kernel.store.list(COSMOS_NAMESPACE)).toEqual(['orphan']);
  } finally {
    await second.kernel.close();
  }
});
