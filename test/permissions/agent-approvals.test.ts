import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequestEvent, Kernel } from '../../core/index.ts';
import { bootAgent, deferred, makeTool, sleep } from '../agent/helpers.ts';
import { expectHubosRejection } from '../core/helpers.ts';
import { permittedTool, streamRun } from './helpers.ts';

const kernels: Kernel[] = [];
async function setup(...args: Parameters<typeof bootAgent>) {
  const booted = await bootAgent(...args);
  kernels.push(booted.kernel);
  return booted;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

describe('permission policy in the agent loop', () => {
  it('refuses a denied call with a model-readable error, without calling the handler or hooks', async () => {
    const bash = permittedTool('bash', ['shell:exec']);
    let hookCalls = 0;
    const { agent, model } = await setup({
      tools: [bash.tool],
      config: { permissions: { deny: ['shell:*'] } },
      script: [{ toolCalls: [{ name: 'bash', input: {} }] }, 'Understood.'],
    });
    agent.hooks.beforeToolCall.tap('count', () => {
      hookCalls++;
      return undefined;
    });
    const result = await agent.run('go');
    expect(bash.inputs).toEqual([]);
    expect(hookCalls).toBe(0);
    expect(result.status).toBe('completed');
    expect(result.toolCalls[0]).toMatchObject({
      ok: false,
      error: { code: 'TOOL_DENIED', message: "permission denied: shell:exec (rule deny 'shell:*')" },
    });
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: "Error: permission denied: shell:exec (rule deny 'shell:*')",
      isError: true,
    });
  });

  it('lets allowed and unmatched calls run as before', async () => {
    const read = permittedTool('read', ['fs:read']);
    const { agent } = await setup({
      tools: [read.tool],
      config: { permissions: { allow: ['fs:read'], deny: ['net:*'] } },
      script: [{ toolCalls: [{ name: 'read', input: { path: 'a' } }] }, 'ok'],
    });
    const { types } = await streamRun(agent, 'go');
    expect(read.inputs).toEqual([{ path: 'a' }]);
    expect(types).not.toContain('approval-request');
  });

  it('uses the agent template’s own rules before the global ones', async () => {
    const bash = permittedTool('bash', ['shell:exec']);
    const { agent } = await setup({
      tools: [bash.tool],
      config: { permissions: { deny: ['shell:*'] } },
      template: { permissions: { allow: ['shell:exec'] } },
      script: [{ toolCalls: [{ name: 'bash', input: {} }] }, 'ok'],
    });
    const result = await agent.run('go');
    expect(result.toolCalls[0]!.ok).toBe(true);
    expect(bash.inputs).toHaveLength(1);
  });
});

describe('approvals in the agent loop', () => {
  const askWrite = { permissions: { ask: ['fs:write'] } };

  it('pauses at an ask, emits approval-request, and runs the call once approved', async () => {
    const write = permittedTool('write', ['fs:write'], 'written');
    const { agent, kernel } = await setup({
      tools: [write.tool],
      config: askWrite,
      script: [{ toolCalls: [{ name: 'write', input: { path: 'notes.md' }, id: 'call-1' }] }, 'Done.'],
    });
    let seen: ApprovalRequestEvent | undefined;
    const { result, types } = await streamRun(agent, 'go', async (event) => {
      seen = event;
      expect(write.inputs).toEqual([]);
      expect(await kernel.approvals.list(event.runId)).toMatchObject([
        { callId: 'call-1', status: 'pending' },
      ]);
      const decided = await agent.approve(event.runId, 'call-1', { approved: true });
      expect(decided).toMatchObject({ status: 'approved' });
    });
    expect(seen).toMatchObject({
      type: 'approval-request',
      runId: result.runId,
      step: 1,
      callId: 'call-1',
      tool: 'write',
      input: { path: 'notes.md' },
      permissions: ['fs:write'],
      rule: 'fs:write',
    });
    expect(Date.parse(seen!.expiresAt) - Date.now()).toBeGreaterThan(250_000);
    expect(types).toEqual([
      'run-start',
      'step-start',
      'tool-call-start',
      'tool-call-end',
      'approval-request',
      'approval-result',
      'tool-result',
      'step-finish',
      'step-start',
      'text-delta',
      'step-finish',
      'run-finish',
    ]);
    expect(result).toMatchObject({ status: 'completed', text: 'Done.' });
    expect(result.toolCalls[0]).toMatchObject({ ok: true, output: 'written' });
    expect(write.inputs).toEqual([{ path: 'notes.md' }]);
    expect(await kernel.approvals.list(result.runId)).toEqual([]);
    expect(await kernel.approvals.get(result.runId, 'call-1')).toMatchObject({ status: 'approved' });
  });

  it('tells the model "denied by the user: <reason>" for a denied call', async () => {
    const write = permittedTool('write', ['fs:write']);
    const { agent, model } = await setup({
      tools: [write.tool],
      config: askWrite,
      script: [{ toolCalls: [{ name: 'write', input: {} }] }, 'Fine.'],
    });
    const { events, result } = await streamRun(agent, 'go', (event) =>
      agent.approve(event.runId, event.callId, { approved: false, reason: 'not today' }),
    );
    expect(write.inputs).toEqual([]);
    expect(events.find((event) => event.type === 'approval-result')).toMatchObject({
      approved: false,
      status: 'denied',
      reason: 'not today',
    });
    expect(result.toolCalls[0]!.error).toEqual({
      code: 'TOOL_DENIED',
      message: 'denied by the user: not today',
    });
    expect(model.requests[1]!.messages.at(-1)!.content).toBe('Error: denied by the user: not today');
  });

  it('denies an unanswered request after approvalTimeoutMs', async () => {
    const write = permittedTool('write', ['fs:write']);
    const { agent, kernel } = await setup({
      tools: [write.tool],
      config: { permissions: { ask: ['fs:write'], approvalTimeoutMs: 40 } },
      script: [{ toolCalls: [{ name: 'write', input: {} }] }, 'ok'],
    });
    const { events, result } = await streamRun(agent, 'go');
    expect(write.inputs).toEqual([]);
    expect(events.find((event) => event.type === 'approval-result')).toMatchObject({ status: 'expired' });
    expect(result.toolCalls[0]!.error!.message).toBe(
      'approval timed out: nobody approved the call to "write" within 40 ms, so it was not run',
    );
    const callId = result.toolCalls[0]!.id;
    expect(await kernel.approvals.get(result.runId, callId)).toMatchObject({ status: 'expired' });
    const late = await expectHubosRejection(
      agent.approve(result.runId, callId, { approved: true }),
      'APPROVAL_DECIDED',
    );
    expect(late.message).toContain('is already expired');
  });

  it('ends promptly as cancelled when the run is cancelled while waiting', async () => {
    const write = permittedTool('write', ['fs:write']);
    const { agent, kernel } = await setup({
      tools: [write.tool],
      config: askWrite,
      script: [{ toolCalls: [{ name: 'write', input: {} }] }, 'never asked'],
    });
    const controller = new AbortController();
    let cancelledAt = 0;
    const cancel = () => {
      cancelledAt = performance.now();
      controller.abort();
    };
    const { result } = await streamRun(agent, 'go', cancel, { signal: controller.signal });
    expect(performance.now() - cancelledAt).toBeLessThan(500);
    expect(result).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(write.inputs).toEqual([]);
    expect(await kernel.approvals.get(result.runId, result.toolCalls[0]!.id)).toMatchObject({
      status: 'cancelled',
    });
  });

  it('keeps running the other calls of the turn while one waits', async () => {
    const write = permittedTool('write', ['fs:write']);
    const freeRan = deferred();
    const free = makeTool('free', () => {
      freeRan.resolve();
      return 'free done';
    });
    const { agent } = await setup({
      tools: [write.tool, free],
      config: askWrite,
      script: [
        {
          toolCalls: [
            { name: 'write', input: {}, id: 'ask' },
            { name: 'free', input: {}, id: 'free' },
          ],
        },
        'ok',
      ],
    });
    const { events, result } = await streamRun(agent, 'go', async (event) => {
      await freeRan.promise; // approve only once the sibling has finished
      await sleep(5);
      await agent.approve(event.runId, event.callId, { approved: true });
    });
    const order = events
      .filter((event) => event.type === 'tool-result' || event.type === 'approval-result')
      .map((event) => (event.type === 'tool-result' ? `result:${event.call.id}` : 'approved'));
    expect(order).toEqual(['result:free', 'approved', 'result:ask']);
    expect(result.toolCalls.map((call) => [call.id, call.ok])).toEqual([
      ['ask', true],
      ['free', true],
    ]);
  });

  it('does not ask about a call whose input is invalid', async () => {
    const write = permittedTool('write', ['fs:write']);
    const { agent } = await setup({
      tools: [write.tool],
      config: askWrite,
      script: [{ toolCalls: [{ name: 'write', input: { path: 5 } }] }, 'ok'],
    });
    const { result, types } = await streamRun(agent, 'go');
    expect(types).not.toContain('approval-request');
    expect(result.toolCalls[0]!.error!.code).toBe('TOOL_INPUT_INVALID');
  });

  it('answers approve() for unknown, foreign and decided requests with clear errors', async () => {
    const write = permittedTool('write', ['fs:write']);
    const { agent, kernel } = await setup({
      tools: [write.tool],
      config: askWrite,
      script: [{ toolCalls: [{ name: 'write', input: {}, id: 'c1' }] }, 'ok'],
    });
    const other = await kernel.createAgent({ name: 'other', model: agent.model });
    await streamRun(agent, 'go', async (event) => {
      await expectHubosRejection(
        agent.approve(event.runId, 'nope', { approved: true }),
        'APPROVAL_NOT_FOUND',
      );
      await expectHubosRejection(other.approve(event.runId, 'c1', { approved: true }), 'APPROVAL_NOT_FOUND');
      await kernel.approvals.decide(event.runId, 'c1', { approved: true });
      await expectHubosRejection(agent.approve(event.runId, 'c1', { approved: false }), 'APPROVAL_DECIDED');
    });
  });

  it('uses the run id it is given', async () => {
    const { agent } = await setup({ script: ['hi'] });
    expect((await agent.run('go', { runId: 'my-run' })).runId).toBe('my-run');
  });
});
