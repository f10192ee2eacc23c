// POST /api/runs/:id/again: an agent's run started again as a new run of the caller's, unchanged,
// with another input or on another model the server's agents use; GET /api/runs/models lists those.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord, RunStep } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { ask } from './helpers.ts';

const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Two agents on two scripted models (`scripted:first`, `scripted:second`), taking queued runs. */
async function serve() {
  const first = new ScriptedModel([], { modelId: 'first' });
  const second = new ScriptedModel([], { modelId: 'second' });
  const kernel = await bootKernel({
    config: {
      agents: {
        helper: { description: 'on the first model', model: first },
        writer: { description: 'on the second model', model: second },
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
    ],
  });
  hubos.registerAgent('helper', kernel.agent('helper'));
  hubos.registerAgent('writer', kernel.agent('writer'));
  await hubos.init();
  await hubos.runs.work(4);
  closers.push(async () => {
    await hubos.close();
    await kernel.close();
  });
  return { kernel, hubos, first, second };
}
type Served = Awaited<ReturnType<typeof serve>>;

async function runHelper(served: Served, input: string, key = ALICE): Promise<RunRecord> {
  const answer = await ask(served.hubos, 'POST', '/api/agents/helper/run', {
    body: { input },
    headers: auth(key),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (await served.hubos.runs.get(answer.body.runId))!;
}

async function again(served: Served, id: string, body?: unknown, key = ALICE, headers = {}) {
  return ask(served.hubos, 'POST', `/api/runs/${id}/again`, {
    ...(body !== undefined ? { body } : {}),
    headers: { ...auth(key), ...headers },
  });
}

/** The repeat's record once it ended, and its steps. */
async function ended(served: Served, id: string): Promise<{ record: RunRecord; steps: RunStep[] }> {
  const record = (await served.hubos.runs.wait(id))!;
  return { record, steps: (await served.hubos.runs.steps(id))! };
}

describe('POST /api/runs/:id/again', () => {
  it('runs the same agent on the same input as a new run of the caller, in a fresh session, paired with the first', async () => {
    const served = await serve();
    served.first.push('first answer', 'second answer');
    const original = await runHelper(served, 'What is 2 + 2?');

    const answer = await again(served, original.id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const repeat = answer.body as RunRecord;
    expect(repeat).toMatchObject({
      agent: 'helper',
      owner: 'alice',
      via: 'rest',
      input: 'What is 2 + 2?',
      againOf: original.id,
    });
    expect(repeat.id).not.toBe(original.id);
    expect(repeat.model).toBeUndefined();
    expect(repeat.sessionId).toMatch(/^again:/);
    const { record } = await ended(served, repeat.id);
    expect(record).toMatchObject({ status: 'completed', againOf: original.id });
    expect(record.result?.text).toBe('second answer');
    // The model heard the input alone: no history of the first run's conversation.
    expect(served.first.requests.at(-1)?.messages).toEqual([{ role: 'user', content: 'What is 2 + 2?' }]);

    // Stored and listed with the run it repeats.
    const listed = await ask(served.hubos, 'GET', '/api/runs', { headers: auth(ALICE) });
    expect(listed.body.runs.map((run: RunRecord) => [run.id, run.againOf])).toEqual([
      [repeat.id, original.id],
      [original.id, undefined],
    ]);
  });

  it('runs for the same end user and within the same budget as the run it repeats', async () => {
    const served = await serve();
    served.first.push('first answer', 'second answer');
    const asked = { budget: { steps: 3, tokens: 5_000 }, userId: 'customer-7' };
    const first = await ask(served.hubos, 'POST', '/api/agents/helper/run', {
      body: { input: 'hello', ...asked },
      headers: auth(ALICE),
    });
    expect(first.status).toBe(200);
    const answer = await again(served, first.body.runId);
    expect(answer.status).toBe(202);
    expect((answer.body as RunRecord).options).toEqual(asked);
    const { record } = await ended(served, answer.body.id);
    expect(record).toMatchObject({ status: 'completed', options: asked });
  });

  it('runs an edited input in place of the first', async () => {
    const served = await serve();
    served.first.push('one', 'two');
    const original = await runHelper(served, 'draft question');
    const answer = await again(served, original.id, { input: 'better question' });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ input: 'better question', againOf: original.id });
    await ended(served, answer.body.id);
    expect(served.first.requests.at(-1)?.messages).toEqual([{ role: 'user', content: 'better question' }]);
  });

  it('runs on another model the server uses: the record, run-start and the model steps name it', async () => {
    const served = await serve();
    served.first.push('from the first');
    served.second.push('from the second');
    const original = await runHelper(served, 'compare me');

    const models = await ask(served.hubos, 'GET', '/api/runs/models', { headers: auth(ALICE) });
    expect(models.status).toBe(200);
    expect(models.body).toEqual({ models: ['scripted:first', 'scripted:second'] });

    const answer = await again(served, original.id, { model: 'scripted:second' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toMatchObject({ agent: 'helper', model: 'scripted:second', againOf: original.id });
    const { record, steps } = await ended(served, answer.body.id);
    expect(record).toMatchObject({ status: 'completed', model: 'scripted:second' });
    expect(record.result?.text).toBe('from the second');
    expect(steps.filter((step) => step.kind === 'model').map((step) => step.name)).toEqual([
      'scripted:second',
    ]);
    const events = [];
    for await (const entry of served.hubos.runs.follow(record.id, 0)) {
      if ('end' in entry) break;
      events.push(entry.event);
    }
    expect(events[0]).toMatchObject({ type: 'run-start', agent: 'helper', model: 'scripted:second' });
    // The first model was asked once: for the original run only.
    expect(served.first.requests).toHaveLength(1);

    // Run again unchanged, the repeat of a repeat keeps its model; naming the agent's own drops it.
    served.second.push('again from the second');
    const twice = await again(served, record.id);
    expect(twice.body).toMatchObject({ model: 'scripted:second', againOf: record.id });
    expect((await ended(served, twice.body.id)).record.result?.text).toBe('again from the second');
    served.first.push('back on the first');
    const back = await again(served, record.id, { model: 'scripted:first' });
    expect(back.body.model).toBeUndefined();
    expect((await ended(served, back.body.id)).record.result?.text).toBe('back on the first');
  });

  it('refuses a model no served agent runs on with MODEL_NOT_ALLOWED listing those it may use', async () => {
    const served = await serve();
    served.first.push('x');
    const original = await runHelper(served, 'hi');
    const answer = await again(served, original.id, { model: 'openai:gpt-4.1' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('MODEL_NOT_ALLOWED');
    expect(answer.body.error.message).toContain('use one of scripted:first, scripted:second');
    // Nothing was started.
    const listed = await ask(served.hubos, 'GET', '/api/runs', { headers: auth(ALICE) });
    expect(listed.body.runs).toHaveLength(1);
  });

  it("answers RUN_NOT_REPEATABLE for a Stars team's or a workflow's run", async () => {
    const served = await serve();
    for (const name of ['stars:crew', 'workflow:release']) {
      const record = await served.hubos.runs.record(
        { name, input: 'do it', principal: { id: 'alice', kind: 'api-key' } },
        async () => 'done',
      );
      await served.hubos.runs.wait(record.id);
      const answer = await again(served, record.id);
      expect(answer.status, name).toBe(409);
      expect(answer.body.error.code).toBe('RUN_NOT_REPEATABLE');
      expect(answer.body.error.message).toContain(`a run of ${name}, not of an agent`);
    }
  });

  it("is a 404 for another key's run and for no run, before anything starts", async () => {
    const served = await serve();
    served.first.push('x');
    const original = await runHelper(served, 'mine');
    for (const id of [original.id, 'nope']) {
      const answer = await again(served, id, { input: 'theirs now' }, BOB);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('RUN_NOT_FOUND');
    }
    const listed = await ask(served.hubos, 'GET', '/api/runs', { headers: auth(BOB) });
    expect(listed.body.runs).toEqual([]);
  });

  it('answers a body that is not JSON, not sent as JSON, or off the schema with a coded 4xx', async () => {
    const served = await serve();
    served.first.push('x');
    const original = await runHelper(served, 'hi');
    const cases: [unknown, Record<string, string>, number, string, string][] = [
      ['{"input": ', {}, 400, 'INVALID_JSON', 'not valid JSON'],
      [
        'input=hi',
        { 'content-type': 'application/x-www-form-urlencoded' },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'Content-Type',
      ],
      [{ input: '' }, {}, 400, 'INVALID_BODY', 'input'],
      [{ input: 42 }, {}, 400, 'INVALID_BODY', 'input'],
      [{ model: ['a'] }, {}, 400, 'INVALID_BODY', 'model'],
      [{ input: 'x', sessionId: 's' }, {}, 400, 'INVALID_BODY', 'sessionId'],
      [[], {}, 400, 'INVALID_BODY', 'object'],
    ];
    for (const [body, headers, status, code, says] of cases) {
      const answer = await again(served, original.id, body, ALICE, headers);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error.code, JSON.stringify(body)).toBe(code);
      expect(answer.body.error.message, JSON.stringify(body)).toContain(says);
    }
    const listed = await ask(served.hubos, 'GET', '/api/runs', { headers: auth(ALICE) });
    expect(listed.body.runs).toHaveLength(1);
  });
});
