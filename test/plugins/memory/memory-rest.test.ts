// Memory over HubOS's run route: `userId` in the body scopes working memory per API key and user;
// another key sending the same userId reads nothing of it; a queued run keeps its userId on its record.

import { ClientFactory } from '@a2a-js/sdk/client';
import { HttpAgent } from '@ag-ui/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import memory from '../../../plugins/memory/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { userText } from '../hubos/a2a/helpers.ts';

const ALICE = 'sk-alice-0123456789abcdef';
const BOB = 'sk-bob-0123456789abcdef01';

describe('memory over the REST run route', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('keeps working memory per key and userId, a queued run’s too', async () => {
    const model = new ScriptedModel();
    const kernel = await bootKernel({
      plugins: [memory()],
      config: { agents: { helper: { model, memory: { recall: false } } } },
    });
    const hubos = new HubOS({
      kernel,
      name: 'test',
      port: 0,
      rateLimit: false,
      apiKeys: [
        { key: ALICE, id: 'alice' },
        { key: BOB, id: 'bob' },
      ],
    });
    hubos.registerAgent('helper', kernel.agent('helper'));
    await hubos.init();
    const url = await hubos.serve();
    closers.push(
      () => kernel.close(),
      () => hubos.close(),
    );
    const run = (key: string, body: object, query = '') =>
      fetch(`${url}/api/agents/helper/run${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });

    model.push(
      { toolCalls: [{ name: 'memory_update', input: { memory: 'favourite colour: teal' } }] },
      'Noted.',
    );
    expect((await run(ALICE, { input: 'I like teal', userId: 'u1' })).status).toBe(200);

    const systems: string[] = [];
    const see = (request: ModelRequest) => {
      systems.push(request.system ?? '');
      return 'ok';
    };
    model.push(see, see, see);
    for (const [key, userId] of [
      [ALICE, 'u1'],
      [BOB, 'u1'],
      [ALICE, 'u2'],
    ] as const)
      expect((await run(key, { input: 'What do I like?', userId })).status).toBe(200);
    expect(systems[0]).toContain('favourite colour: teal');
    expect(systems[1]).not.toContain('teal');
    expect(systems[2]).not.toContain('teal');

    // A queued run keeps its user on its record: it reads that user's memory wherever it runs.
    model.push(see);
    const queued = await run(ALICE, { input: 'What do I like?', userId: 'u1' }, '?async=true');
    expect(queued.status).toBe(202);
    const { runId } = (await queued.json()) as { runId: string };
    await hubos.runs.wait(runId);
    expect(systems[3]).toContain('favourite colour: teal');
    const bad = await run(ALICE, { input: 'hi', userId: 'x'.repeat(300) });
    expect(bad.status).toBe(400);
    // A control character (NUL) is refused with the field named, not left to fail the store's write.
    const nul = await run(ALICE, { input: 'hi', userId: 'u\u00001' });
    expect(nul.status).toBe(400);
    const { error } = (await nul.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('INVALID_BODY');
    expect(error.message).toContain('userId');
    model.assertConsumed();
  });

  it("takes AG-UI's forwardedProps.userId as the run's user", async () => {
    const model = new ScriptedModel();
    const kernel = await bootKernel({
      plugins: [memory()],
      config: { agents: { helper: { model, memory: { recall: false } } } },
    });
    const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false });
    hubos.registerAgent('helper', kernel.agent('helper'));
    const url = await hubos.serve();
    closers.push(
      () => kernel.close(),
      () => hubos.close(),
    );
    const ask = async (userId: unknown, threadId: string) => {
      const client = new HttpAgent({ url: `${url}/agui/helper`, threadId });
      client.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'hi' });
      return client.runAgent({ forwardedProps: { userId } }).then(
        () => 'ok',
        (error: unknown) => String(error),
      );
    };
    model.push({ toolCalls: [{ name: 'memory_update', input: { memory: 'likes: tea' } }] }, 'Noted.');
    expect(await ask('u1', 't1')).toBe('ok');
    const systems: string[] = [];
    const see = (request: ModelRequest) => {
      systems.push(request.system ?? '');
      return 'ok';
    };
    model.push(see, see);
    await ask('u1', 't2');
    await ask('u2', 't3');
    expect(systems[0]).toContain('likes: tea');
    expect(systems[1]).not.toContain('tea');
    expect(await ask(42, 't4')).toMatch(/400|userId/);
    expect(await ask('u\u00001', 't5')).toMatch(/400|userId/);
    model.assertConsumed();
  });

  it("takes A2A's message metadata.userId as the run's user, and refuses one that is not a string", async () => {
    const model = new ScriptedModel();
    const kernel = await bootKernel({
      plugins: [memory()],
      config: { agents: { helper: { model, memory: { recall: false } } } },
    });
    const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false });
    hubos.registerAgent('helper', kernel.agent('helper'));
    const url = await hubos.serve();
    closers.push(
      () => kernel.close(),
      () => hubos.close(),
    );
    const client = await new ClientFactory().createFromUrl(`${url}/a2a/helper/`);
    const ask = (userId: unknown) => {
      const request = userText('hi');
      request.message!.metadata = { userId } as never;
      return client.sendMessage(request).then(
        (answer) => JSON.stringify(answer),
        (error: unknown) => String(error),
      );
    };
    model.push({ toolCalls: [{ name: 'memory_update', input: { memory: 'likes: jazz' } }] }, 'Noted.');
    expect(await ask('u1')).toContain('Noted.');
    const systems: string[] = [];
    const see = (request: ModelRequest) => {
      systems.push(request.system ?? '');
      return 'ok';
    };
    model.push(see, see);
    await ask('u1');
    await ask('u2');
    expect(systems[0]).toContain('likes: jazz');
    expect(systems[1]).not.toContain('jazz');
    expect(await ask(42)).toMatch(/metadata\.userId must be a string/);
    model.assertConsumed();
  });
});
