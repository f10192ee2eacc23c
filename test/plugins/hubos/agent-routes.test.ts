// The agents routes' logic through the app itself (`app.request()`, no socket): listing, describing,
// running, bad input, and a failed run answered by the one error mapping as its code declares.
// SSE, disconnects, body limits and rate limits, which need the network, are in rest.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { defineErrorCodes, HubosError } from '../../../core/index.ts';
import type { ScriptStep } from '../../../testing/index.ts';
import { ask, type Built, buildHelper } from './helpers.ts';

const QUOTA = defineErrorCodes('test-agent-routes', {
  TEST_QUOTA_GONE: { status: 503, headers: { 'retry-after': '7' } },
});

let built: Built | undefined;
afterEach(async () => {
  await built?.close();
  built = undefined;
});

async function build(script: ScriptStep[], options: Parameters<typeof buildHelper>[1] = {}) {
  built = await buildHelper(script, options);
  return built.hubos;
}

describe('GET /api/agents and /api/agents/:name', () => {
  it('lists and describes the agents; an unknown one is a 404 AGENT_NOT_FOUND', async () => {
    const hubos = await build([]);
    const list = await ask(hubos, 'GET', '/api/agents');
    expect(list.status).toBe(200);
    expect(list.body.agents).toEqual([
      {
        name: 'helper',
        description: 'A test helper',
        model: 'scripted:scripted',
        tools: [
          { name: 'echo', description: 'Echoes its text.' },
          { name: 'wait', description: 'Waits until cancelled.' },
        ],
      },
    ]);
    expect((await ask(hubos, 'GET', '/api/agents/helper')).body.name).toBe('helper');
    const missing = await ask(hubos, 'GET', '/api/agents/nobody');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: { code: 'AGENT_NOT_FOUND', message: 'no agent "nobody" (agents: helper)' },
    });
  });

  it('hides an agent a guard keeps from the caller: not listed, 404 to describe and to run', async () => {
    const hubos = await build(['never asked']);
    hubos.guardAgents(() => false);
    expect((await ask(hubos, 'GET', '/api/agents')).body.agents).toEqual([]);
    expect((await ask(hubos, 'GET', '/api/agents/helper')).status).toBe(404);
    const run = await ask(hubos, 'POST', '/api/agents/helper/run', { body: { input: 'hi' } });
    expect(run.status).toBe(404);
    expect(run.body.error.message).toBe('no agent "helper" (agents: none)');
    expect(built!.model.requests).toHaveLength(0);
  });
});

describe('POST /api/agents/:name/run', () => {
  it('runs the agent and answers its result as JSON', async () => {
    const hubos = await build([{ toolCalls: [{ name: 'echo', input: { text: 'hi' } }] }, 'Done.']);
    const answer = await ask(hubos, 'POST', '/api/agents/helper/run', {
      body: { input: 'go', sessionId: 's1' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'completed',
      text: 'Done.',
      sessionId: 's1',
      toolCalls: [{ name: 'echo', output: { echoed: 'hi' } }],
    });
    expect((await ask(hubos, 'GET', `/api/runs/${answer.body.runId}`)).body.status).toBe('completed');
  });

  it('answers bad input with a coded 400 naming what is wrong, and keeps serving', async () => {
    const hubos = await build(['still fine']);
    const run = (body: unknown) => ask(hubos, 'POST', '/api/agents/helper/run', { body });
    const malformed = await run('{"input": ');
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'INVALID_JSON']);
    const wrongType = await run({ input: 42 });
    expect([wrongType.status, wrongType.body.error.code]).toEqual([400, 'INVALID_BODY']);
    expect(wrongType.body.error.message).toContain('"input" must be string, got integer 42');
    expect((await run({ input: 'x', extra: 1 })).body.error.message).toContain('unknown property "extra"');
    expect((await run({})).body.error.message).toContain('missing required property "input"');
    expect((await run({ input: '' })).status).toBe(400);
    expect((await run({ input: 'x', sessionId: '../../etc' })).status).toBe(400);
    expect((await run([1, 2])).status).toBe(400);
    const noRoute = await ask(hubos, 'GET', '/api/nope');
    expect([noRoute.status, noRoute.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await run({ input: 'now' })).status).toBe(200);
    expect(built!.model.requests).toHaveLength(1);
  });

  it('queues the run with ?async=true: 202 with where to follow it; a queued run can be cancelled', async () => {
    // No workers here (the server does not listen): the run stays queued.
    const hubos = await build([]);
    const started = await ask(hubos, 'POST', '/api/agents/helper/run?async=true', {
      body: { input: 'later' },
    });
    expect(started.status).toBe(202);
    const { runId } = started.body;
    expect(started.body).toEqual({
      runId,
      status: 'queued',
      href: `/api/runs/${runId}`,
      events: `/api/runs/${runId}/events`,
    });
    expect((await ask(hubos, 'GET', `/api/runs/${runId}`)).body).toMatchObject({
      status: 'queued',
      input: 'later',
    });
    expect(
      (await ask(hubos, 'POST', '/api/agents/helper/run?async=1', { body: { input: 'too' } })).status,
    ).toBe(202);
    const cancelled = await ask(hubos, 'POST', `/api/runs/${runId}/cancel`);
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
    const again = await ask(hubos, 'POST', `/api/runs/${runId}/cancel`);
    expect([again.status, again.body.error.code]).toEqual([409, 'RUN_ENDED']);
    // Anything else than true or 1 runs it at once.
    expect(
      (await ask(hubos, 'POST', '/api/agents/helper/run?async=no', { body: { input: 'x' } })).status,
    ).toBe(502);
  });

  it.each([
    ['a model error', 'upstream said no', 502, 'MODEL_HTTP_ERROR'],
    ['a model timeout', new HubosError('MODEL_TIMEOUT', 'silent for 1 ms'), 504, 'MODEL_TIMEOUT'],
    [
      'a bad model answer',
      new HubosError('MODEL_RESPONSE_INVALID', 'no finish'),
      502,
      'MODEL_RESPONSE_INVALID',
    ],
    // The server's own setup is wrong, not a gateway's: 500, as the code is declared.
    ['a model not set up', new HubosError('MODEL_CONFIG', 'no OpenAI API key'), 500, 'MODEL_CONFIG'],
    ['an undeclared code', new HubosError('TEST_NOBODY_DECLARED', 'odd'), 500, 'TEST_NOBODY_DECLARED'],
  ] as const)(
    "answers a run failing on %s with the status its code declares and the run's result",
    async (_, error, status, code) => {
      // A timeout is retried twice on the same model (a chain of one) before the run fails.
      const failures = code === 'MODEL_TIMEOUT' ? [{ error }, { error }, { error }] : [{ error }];
      const hubos = await build([{ toolCalls: [{ name: 'echo', input: { text: 'a' } }] }, ...failures]);
      const answer = await ask(hubos, 'POST', '/api/agents/helper/run', { body: { input: 'go' } });
      expect(answer.status).toBe(status);
      expect(answer.body.error.code).toBe(code);
      expect(answer.body.error.message).toContain(typeof error === 'string' ? error : error.message);
      // What the run did before it failed comes with the error.
      expect(answer.body.result).toMatchObject({ status: 'failed', toolCalls: [{ name: 'echo' }] });
    },
  );

  it('answers a failure whose code declares headers with them (Retry-After)', async () => {
    const hubos = await build([{ error: QUOTA.create('TEST_QUOTA_GONE', 'the quota is spent') }]);
    const answer = await ask(hubos, 'POST', '/api/agents/helper/run', { body: { input: 'go' } });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(answer.body.error).toEqual({ code: 'TEST_QUOTA_GONE', message: 'the quota is spent' });
  });

  it('answers 504 RUN_TIMEOUT past requestTimeoutMs, the run cancelled', async () => {
    const hubos = await build([{ toolCalls: [{ name: 'wait' }] }], { requestTimeoutMs: 200 });
    const answer = await ask(hubos, 'POST', '/api/agents/helper/run', { body: { input: 'wait' } });
    expect(answer.status).toBe(504);
    expect(answer.body.error.code).toBe('RUN_TIMEOUT');
    expect(answer.body.error.message).toContain('use ?async=true');
    expect(hubos.runs.running).toBe(0);
  });
});
