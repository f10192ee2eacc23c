import { describe, expect, it } from 'vitest';
import { HubosError, type ModelRequest } from '../../../core/index.ts';
import { Stars, type StarsEvent } from '../../../plugins/stars/index.ts';
import { barrier, bootCrew, bootTeam, until } from './helpers.ts';

const delegateBoth = {
  toolCalls: [
    {
      name: 'stars_delegate',
      input: {
        tasks: [
          { worker: 'alice', task: 'Research the topic.' },
          { worker: 'bob', task: 'Draft the text.' },
        ],
      },
    },
  ],
  usage: { inputTokens: 7, outputTokens: 3 },
};

/** The content of the last tool message the model was sent. */
const lastToolResult = (request: ModelRequest) =>
  [...request.messages].reverse().find((m) => m.role === 'tool')?.content ?? '';
const lastUser = (request: ModelRequest) =>
  [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

describe('Stars collaborative run', () => {
  it('the leader delegates to two workers that run concurrently, then synthesizes their results', async () => {
    const both = barrier(2);
    const { stars, models } = await bootCrew({
      lead: [
        delegateBoth,
        (request) => ({
          text: `Summary of ${lastToolResult(request)}`,
          usage: { inputTokens: 20, outputTokens: 8 },
        }),
      ],
      // Each worker waits at the barrier: the run only gets past it if both are running at once.
      w1: [
        async () => {
          await both();
          return { text: 'facts', usage: { inputTokens: 2, outputTokens: 1 } };
        },
      ],
      w2: [
        async () => {
          await both();
          return { toolCalls: [{ name: 'stars_send', input: { to: 'leader', content: 'draft coming' } }] };
        },
        'draft',
      ],
    });
    stars.send('leader', 'alice', 'use primary sources');

    const result = await stars.run('Write a report.');
    expect(result.status).toBe('completed');
    expect(result.team).toBe('crew');
    expect(result.delegations).toEqual([
      { worker: 'alice', task: 'Research the topic.', ok: true, result: 'facts' },
      { worker: 'bob', task: 'Draft the text.', ok: true, result: 'draft' },
    ]);
    expect(result.text).toContain('Summary of');
    const toolResult = JSON.parse(lastToolResult(models.lead.requests[1]!));
    expect(toolResult).toEqual([
      { worker: 'alice', ok: true, result: 'facts' },
      { worker: 'bob', ok: true, result: 'draft' },
    ]);
    // The leader saw the task and the roster; the worker its inbox before its task.
    const brief = lastUser(models.lead.requests[0]!);
    expect(brief).toContain('Write a report.');
    expect(brief).toContain('- alice (worker): Researches');
    expect(brief).toContain('- bob (worker): Writes');
    expect(models.lead.requests[0]!.tools.map((t) => t.name)).toEqual([
      'stars_delegate',
      'stars_send',
      'stars_broadcast',
    ]);
    expect(lastUser(models.w1.requests[0]!)).toMatch(
      /from leader: use primary sources[\s\S]*Research the topic\./,
    );
    expect(models.w1.requests[0]!.tools.map((t) => t.name)).toEqual(['stars_send', 'stars_broadcast']);
    // Bob's message and both results are messages of the run, and in the history.
    expect(result.messages.map((m) => [m.from, m.to, m.kind, m.content])).toEqual(
      expect.arrayContaining([
        ['bob', 'leader', 'message', 'draft coming'],
        ['alice', 'leader', 'result', 'facts'],
        ['bob', 'leader', 'result', 'draft'],
      ]),
    );
    expect(result.messages).toHaveLength(3);
    expect(stars.history()).toHaveLength(4);
    expect(result.usage).toEqual({
      leader: expect.objectContaining({ inputTokens: 27, outputTokens: 11 }),
      alice: expect.objectContaining({ inputTokens: 2, outputTokens: 1 }),
      bob: expect.objectContaining({ inputTokens: 20, outputTokens: 10 }),
    });
    for (const model of Object.values(models)) model.assertConsumed();
  });

  it('a failing worker reaches the leader as a failure it reacts to', async () => {
    const { stars, models } = await bootCrew({
      lead: [
        delegateBoth,
        (request) => ({
          toolCalls: [
            {
              name: 'stars_delegate',
              input: {
                tasks: [{ worker: 'alice', task: `Redo: ${lastToolResult(request).includes('"ok":false')}` }],
              },
            },
          ],
        }),
        'Done without bob.',
      ],
      w1: ['facts', 'more facts'],
      w2: [{ error: 'the model is down' }],
    });
    const result = await stars.run('Write a report.');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Done without bob.');
    const failed = result.delegations.find((d) => d.worker === 'bob')!;
    expect(failed.ok).toBe(false);
    expect(failed.error!.message).toContain('the model is down');
    const seen = JSON.parse(lastToolResult(models.lead.requests[1]!));
    expect(seen).toContainEqual({
      worker: 'bob',
      ok: false,
      error: expect.stringContaining('the model is down'),
    });
    expect(result.delegations.at(-1)).toMatchObject({ worker: 'alice', task: 'Redo: true', ok: true });
    // Delegating to a non-worker or a stranger fails that delegation only.
    models.lead.push(
      { toolCalls: [{ name: 'stars_delegate', input: { tasks: [{ worker: 'zed', task: 'x' }] } }] },
      'ok',
    );
    const again = await stars.run('Again.');
    expect(again.delegations[0]).toMatchObject({ worker: 'zed', ok: false });
    expect(lastToolResult(models.lead.requests.at(-1)!)).toContain('Error:');
  });

  it('cancelling the run cancels every member; the stream tags each event with its member', async () => {
    const { stars, models } = await bootCrew({
      lead: [delegateBoth],
      w1: [{ text: 'never', delayMs: 60_000 }],
      w2: [{ text: 'never', delayMs: 60_000 }],
    });
    const controller = new AbortController();
    const events: StarsEvent[] = [];
    const consumed = (async () => {
      for await (const event of stars.stream('Write a report.', { signal: controller.signal }))
        events.push(event);
    })();
    await until(() => models.w1.requests.length === 1 && models.w2.requests.length === 1);
    controller.abort();
    await consumed;
    const finishes = events.filter((e) => e.type === 'run-finish') as Extract<
      StarsEvent,
      { type: 'run-finish' }
    >[];
    // The leader's turn ended at its delegate call; the workers' runs were cancelled.
    expect(finishes.map((e) => [e.member, e.result.status, e.result.stopReason]).sort()).toEqual([
      ['alice', 'cancelled', 'cancelled'],
      ['bob', 'cancelled', 'cancelled'],
      ['leader', 'completed', 'client-tool'],
    ]);
    const last = events.at(-1) as Extract<StarsEvent, { type: 'stars-finish' }>;
    expect(last.type).toBe('stars-finish');
    expect(last.result.status).toBe('cancelled');
    for (const event of events) expect(['leader', 'alice', 'bob']).toContain(event.member);
    expect(events.filter((e) => e.type === 'run-start').map((e) => e.member)).toEqual([
      'leader',
      'alice',
      'bob',
    ]);
    expect(
      events.filter((e) => e.type === 'stars-delegation').map((e) => (e as { worker: string }).worker),
    ).toEqual(['alice', 'bob']);
  });

  it('cancels through run({ signal }) too, and refuses to run without a leader', async () => {
    const { stars, models } = await bootCrew({
      lead: [delegateBoth],
      w1: [{ text: 'never', delayMs: 60_000 }],
      w2: [{ text: 'never', delayMs: 60_000 }],
    });
    const controller = new AbortController();
    const running = stars.run('Task.', { signal: controller.signal });
    await until(() => models.w2.requests.length === 1);
    controller.abort();
    expect((await running).status).toBe('cancelled');

    const { cosmos } = await bootTeam();
    await cosmos.create({ agentId: 'solo', templateId: 'w1' });
    const leaderless = new Stars(cosmos, 'leaderless');
    leaderless.join('solo', 'worker');
    const error = await leaderless.run('Task.').catch((e: unknown) => e);
    expect(HubosError.is(error) && error.code).toBe('STARS_NO_LEADER');
    expect((error as Error).message).toContain('has no leader');
  });
});

describe('Stars run for a caller', () => {
  it("runs every member's conversation for the principal it is given (their approvals are that caller's)", async () => {
    const { stars } = await bootCrew({
      lead: [
        { toolCalls: [{ name: 'stars_delegate', input: { tasks: [{ worker: 'alice', task: 'Look.' }] } }] },
        'Done.',
      ],
      w1: ['Found.'],
    });
    const seen: (string | undefined)[] = [];
    for (const member of ['leader', 'alice'])
      stars.agent(member).hooks.beforeModelCall.tap('test', ({ run }) => void seen.push(run.principal));
    expect((await stars.run('Go', { principal: 'key:0123456789abcdef' })).status).toBe('completed');
    expect(seen).toHaveLength(3);
    expect(new Set(seen)).toEqual(new Set(['key:0123456789abcdef']));
  });
});
