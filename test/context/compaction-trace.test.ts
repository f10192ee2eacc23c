// Compaction through the server: a run that summarized records it as a step of its trace, before
// the model call; another key's run under the same session id sees nothing of the first key's.
import { afterEach, describe, expect, it } from 'vitest';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { bootKernel } from '../../testing/index.ts';
import { ask } from '../plugins/hubos/helpers.ts';
import { filler, NoteModel } from './note-model.ts';

const ALICE = 'a'.repeat(32);
const BOB = 'b'.repeat(32);
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const WINDOW = 2_000;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(model: NoteModel) {
  const kernel = await bootKernel({
    config: {
      agents: { helper: { model, context: { compaction: { contextWindow: WINDOW, keepTurns: 2 } } } },
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
  await hubos.init();
  await hubos.runs.work(2);
  closers.push(async () => {
    await hubos.close();
    await kernel.close();
  });
  return hubos;
}

async function turn(hubos: HubOS, input: string, key: string): Promise<string> {
  const answer = await ask(hubos, 'POST', '/api/agents/helper/run', {
    body: { input, sessionId: 'chat' },
    headers: auth(key),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.runId as string;
}

describe('compaction on the server', () => {
  it('records each summary as a compaction step before its model call, and keeps keys apart', async () => {
    const model = new NoteModel(WINDOW);
    const hubos = await serve(model);
    const runs: string[] = [];
    for (let n = 1; n <= 16; n++)
      runs.push(await turn(hubos, `${n === 2 ? 'fact: pin = 4711 ' : ''}${filler(400, n)}`, ALICE));
    const traced = await Promise.all(
      runs.map(async (id) => {
        await hubos.runs.wait(id);
        return (await ask(hubos, 'GET', `/api/runs/${id}/steps`, { headers: auth(ALICE) })).body.steps as {
          kind: string;
          name: string;
          seq: number;
          detail?: { tokensBefore: number; tokensAfter: number; through: number };
        }[];
      }),
    );
    const compacted = traced.filter((steps) => steps.some((step) => step.kind === 'compaction'));
    expect(compacted.length).toBeGreaterThan(0);
    for (const steps of compacted) {
      expect(steps.map((step) => step.kind)).toEqual(['compaction', 'model']);
      expect(steps.map((step) => step.seq)).toEqual([1, 2]);
      expect(steps[0]).toMatchObject({ name: 'fake:notes' });
      expect(steps[0]!.detail!.tokensAfter).toBeLessThan(steps[0]!.detail!.tokensBefore);
    }
    // Bob's session of the same id is his own: none of Alice's turns, nor her summary.
    const before = model.requests.length;
    await hubos.runs.wait(await turn(hubos, 'what is pin?', BOB));
    const bobs = model.requests.slice(before);
    expect(bobs).toHaveLength(1);
    expect(bobs[0]!.messages).toEqual([{ role: 'user', content: 'what is pin?' }]);
    // Alice's does recall it, from her summary.
    const id = await turn(hubos, 'what is pin?', ALICE);
    expect((await hubos.runs.wait(id))!.result).toMatchObject({ text: 'pin is 4711' });
  });
});
