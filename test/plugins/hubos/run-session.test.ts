// GET /api/runs/:id/session: the whole stored conversation of a run's session, a page at a time.
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { ALICE_KEY as ALICE, BOB_KEY as BOB, keyedHubOS } from '../../helpers/keys.ts';
import { post } from './helpers.ts';

let closing: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closing?.();
  closing = undefined;
});

async function serve(): Promise<string> {
  const model = new ScriptedModel(Array.from({ length: 20 }, (_, i) => `answer ${i + 1}`));
  // The model is sent the last 4 messages only: the session keeps them all.
  const kernel: Kernel = await bootKernel({
    config: { sessions: { historyLimit: 4 }, agents: { helper: { model } } },
  });
  const { hubos, url } = await keyedHubOS(kernel);
  closing = async () => {
    await hubos.close();
    await kernel.close();
  };
  return url;
}

interface Page {
  agent: string;
  total: number;
  offset: number;
  messages: unknown[];
}

const as = (key: string) => ({ authorization: `Bearer ${key}` });

async function turn(url: string, input: string, key = ALICE): Promise<string> {
  const response = await post(`${url}/api/agents/helper/run`, { input, sessionId: 'chat' }, as(key));
  expect(response.status).toBe(200);
  return ((await response.json()) as { runId: string }).runId;
}

describe('GET /api/runs/:id/session', () => {
  it("answers every message of the run's session, past what historyLimit sends, a page at a time", async () => {
    const url = await serve();
    let last = '';
    for (let i = 1; i <= 6; i++) last = await turn(url, `question ${i}`);
    const whole = (await (
      await fetch(`${url}/api/runs/${last}/session`, { headers: as(ALICE) })
    ).json()) as Page;
    expect(whole).toMatchObject({ agent: 'helper', total: 12, offset: 0 });
    expect(whole.messages[0]).toEqual({ role: 'user', content: 'question 1' });
    expect(whole.messages.at(-1)).toEqual({ role: 'assistant', content: 'answer 6' });

    const page = (await (
      await fetch(`${url}/api/runs/${last}/session?limit=5`, { headers: as(ALICE) })
    ).json()) as Page;
    expect(page).toMatchObject({ total: 12, offset: 7 });
    expect(page.messages).toHaveLength(5);
    const middle = (await (
      await fetch(`${url}/api/runs/${last}/session?offset=2&limit=2`, { headers: as(ALICE) })
    ).json()) as Page;
    expect(middle.messages).toEqual([
      { role: 'user', content: 'question 2' },
      { role: 'assistant', content: 'answer 2' },
    ]);
  });

  it("is the run's reader's only: another key gets 404; a bad offset or limit 400", async () => {
    const url = await serve();
    const run = await turn(url, 'secret plans');
    const other = await fetch(`${url}/api/runs/${run}/session`, { headers: as(BOB) });
    expect(other.status).toBe(404);
    expect(JSON.stringify(await other.json())).not.toContain('secret');
    for (const query of ['limit=0', 'limit=501', 'offset=-1', 'offset=1e3', 'limit=abc']) {
      const response = await fetch(`${url}/api/runs/${run}/session?${query}`, { headers: as(ALICE) });
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('RUN_QUERY_INVALID');
    }
  });

  it('answers no messages for a run without a session', async () => {
    const url = await serve();
    const response = await post(`${url}/api/agents/helper/run`, { input: 'once' }, as(ALICE));
    const { runId } = (await response.json()) as { runId: string };
    const answer = await (await fetch(`${url}/api/runs/${runId}/session`, { headers: as(ALICE) })).json();
    expect(answer).toEqual({ agent: 'helper', total: 0, offset: 0, messages: [] });
  });
});
