import { describe, expect, it } from 'vitest';
import { serveCrew } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const serve = serveCrew;

function send(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

const code = async (response: Response) => ((await response.json()) as Json).error.code;

describe('Stars routes', () => {
  it('builds configured teams in Cosmos and serves them: list, members, join, leave, messages', async () => {
    const { url, cosmos } = await serve();
    expect(cosmos.list().map((a) => a.id)).toEqual(['crew-lead', 'crew-w1', 'crew-w2']);
    const list: Json = await (await fetch(`${url}/api/stars`)).json();
    expect(list.stars[0].name).toBe('crew');
    expect(list.stars[0].members.map((m: Json) => [m.agentId, m.role])).toEqual([
      ['crew-lead', 'leader'],
      ['crew-w1', 'worker'],
      ['crew-w2', 'worker'],
    ]);
    const members: Json = await (await fetch(`${url}/api/stars/crew/members`)).json();
    expect(members.members).toHaveLength(3);

    await cosmos.create({ agentId: 'extra', templateId: 'w3' });
    const joined = await send(`${url}/api/stars/crew/members`, 'POST', { agentId: 'extra', role: 'worker' });
    expect(joined.status).toBe(201);
    expect(await joined.json()).toEqual({ agentId: 'extra', role: 'worker', description: 'Reviews' });

    const sent = await send(`${url}/api/stars/crew/messages`, 'POST', {
      from: 'crew-lead',
      to: 'extra',
      content: 'hi',
    });
    expect(sent.status).toBe(201);
    const all = await send(`${url}/api/stars/crew/messages`, 'POST', { from: 'extra', content: 'hello all' });
    expect(((await all.json()) as Json).message).toMatchObject({
      from: 'extra',
      to: '*',
      content: 'hello all',
    });
    const history: Json = await (await fetch(`${url}/api/stars/crew/messages`)).json();
    expect(history.messages.map((m: Json) => [m.from, m.to, m.content])).toEqual([
      ['crew-lead', 'extra', 'hi'],
      ['extra', '*', 'hello all'],
    ]);

    const left = await send(`${url}/api/stars/crew/members/extra`, 'DELETE');
    expect(left.status).toBe(200);
    expect(await left.json()).toEqual({ left: 'extra' });
  });

  it('runs a team: JSON, and SSE events tagged with the member', async () => {
    const { url } = await serve({
      lead: [
        { toolCalls: [{ name: 'stars_delegate', input: { tasks: [{ worker: 'crew-w1', task: 'go' }] } }] },
        'All done.',
        'Direct.',
      ],
      w1: ['worked'],
    });
    const run = await send(`${url}/api/stars/crew/run`, 'POST', { task: 'Do it.' });
    expect(run.status).toBe(200);
    const result: Json = await run.json();
    expect(result).toMatchObject({
      status: 'completed',
      text: 'All done.',
      delegations: [{ worker: 'crew-w1', ok: true, result: 'worked' }],
    });

    const streamed = await send(
      `${url}/api/stars/crew/run`,
      'POST',
      { task: 'Again.' },
      { accept: 'text/event-stream' },
    );
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const text = await streamed.text();
    expect(text).toContain('event: run-start');
    expect(text).toContain('"member":"crew-lead"');
    expect(text).toContain('event: stars-finish');
  });

  it('answers each error with its status: 404 unknown team or member, 409 duplicate or second leader or no leader, 400 bad body', async () => {
    const { url, cosmos } = await serve();
    await cosmos.create({ agentId: 'boss', templateId: 'lead' });
    const join = (body: unknown, team = 'crew') => send(`${url}/api/stars/${team}/members`, 'POST', body);

    for (const response of [
      await fetch(`${url}/api/stars/nope/members`),
      await fetch(`${url}/api/stars/nope/messages`),
      await send(`${url}/api/stars/nope/run`, 'POST', { task: 'x' }),
      await join({ agentId: 'boss', role: 'worker' }, 'nope'),
    ]) {
      expect(response.status).toBe(404);
      expect(await code(response)).toBe('STARS_NOT_FOUND');
    }
    const stranger = await join({ agentId: 'ghost', role: 'worker' });
    expect([stranger.status, await code(stranger)]).toEqual([404, 'STARS_AGENT_NOT_FOUND']);
    const notMember = await send(`${url}/api/stars/crew/members/ghost`, 'DELETE');
    expect([notMember.status, await code(notMember)]).toEqual([404, 'STARS_NOT_MEMBER']);
    const badSender = await send(`${url}/api/stars/crew/messages`, 'POST', { from: 'ghost', content: 'x' });
    expect([badSender.status, await code(badSender)]).toEqual([404, 'STARS_NOT_MEMBER']);

    const duplicate = await join({ agentId: 'crew-w1', role: 'worker' });
    expect([duplicate.status, await code(duplicate)]).toEqual([409, 'STARS_MEMBER_EXISTS']);
    const secondLeader = await join({ agentId: 'boss', role: 'leader' });
    expect([secondLeader.status, await code(secondLeader)]).toEqual([409, 'STARS_LEADER_EXISTS']);

    for (const bad of [
      { agentId: 'boss' },
      { agentId: 'boss', role: 'captain' },
      { agentId: 'boss', role: 'worker', x: 1 },
      '{nope',
    ]) {
      const response = await join(bad);
      expect(response.status).toBe(400);
    }
    for (const bad of [
      { to: 'crew-w1', content: 'x' },
      { from: 'crew-lead', content: '' },
      { from: 'crew-lead' },
    ]) {
      expect((await send(`${url}/api/stars/crew/messages`, 'POST', bad)).status).toBe(400);
    }
    expect((await send(`${url}/api/stars/crew/run`, 'POST', {})).status).toBe(400);

    expect((await send(`${url}/api/stars/crew/members/crew-lead`, 'DELETE')).status).toBe(200);
    for (const accept of ['application/json', 'text/event-stream']) {
      const leaderless = await send(`${url}/api/stars/crew/run`, 'POST', { task: 'x' }, { accept });
      expect([leaderless.status, await code(leaderless)]).toEqual([409, 'STARS_NO_LEADER']);
    }
  });

  it('documents its routes in the OpenAPI document', async () => {
    const { url } = await serve();
    const doc: Json = await (await fetch(`${url}/api/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/stars',
        '/api/stars/{name}/run',
        '/api/stars/{name}/members',
        '/api/stars/{name}/members/{agentId}',
        '/api/stars/{name}/messages',
      ]),
    );
  });
});
