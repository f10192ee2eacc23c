/**
 * Workflow runs belong to the caller that started them, over a real server with API keys: another
 * key gets 404 for them, an admin key sees them all, and their steps run for that caller.
 */
import { describe, expect, it } from 'vitest';
import { defineTool, type Plugin } from '../../../core/index.ts';
import hubos, { keyPrincipal } from '../../../plugins/hubos/index.ts';
import { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { API_KEYS, KEY_A, KEY_B, KEY_OPS } from '../../helpers/keys.ts';
import { bootWorkflows, wait } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const A = keyPrincipal(KEY_A).id;
const B = keyPrincipal(KEY_B).id;

/** Answers who the call is for, and remembers it. */
const seen: (string | undefined)[] = [];
const whoami = defineTool({
  name: 'whoami',
  description: 'Says who the run is for.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false } as const,
  handler: (_ctx, tc) => {
    seen.push(tc.principal);
    return { principal: tc.principal ?? null };
  },
});
const whoamiPlugin: Plugin = {
  name: 'whoami',
  apply(kernel) {
    kernel.hooks.registerTools.tap('whoami', (registry) => registry.register(whoami));
  },
};

const slow = defineWorkflow({
  name: 'slow',
  steps: [{ id: 'nap', kind: 'function', run: (_s, { signal }) => wait(60_000, signal) }],
});

const who = defineWorkflow({
  name: 'who',
  steps: [
    { id: 'ask', kind: 'agent', agent: 'writer', input: 'Who am I working for?' },
    { id: 'tool', kind: 'tool', tool: 'whoami' },
    { id: 'fn', kind: 'function', run: (_s, { principal }) => principal ?? null },
  ],
  output: (s) => s.steps,
});

const asking = defineWorkflow({
  name: 'asking',
  steps: [{ id: 'sum', kind: 'tool', tool: 'add', input: { a: 1, b: 2 } }],
});

const chat = defineWorkflow({
  name: 'chat',
  steps: [{ id: 'talk', kind: 'agent', agent: 'writer', input: '{{input.say}}', sessionId: 'notes' }],
});

async function serve(keys = true) {
  const writer = new ScriptedModel();
  const setup = await bootWorkflows([slow, who, asking, chat], undefined, {
    plugins: [
      whoamiPlugin,
      hubos({
        port: 0,
        rateLimit: false,
        ...(keys ? { apiKeys: API_KEYS } : {}),
      }),
    ],
    config: {
      agents: { writer: { instructions: 'Write.', model: writer, tools: ['whoami'] } },
      permissions: { ask: ['math:add'] },
    },
  });
  const url = `${await setup.kernel.service('hubos').serve()}/api`;
  const call = (key: string | undefined, path: string, body?: unknown, accept?: string) =>
    fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(accept ? { accept } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { ...setup, writer, url, call };
}

const errorCode = async (response: Response) => ((await response.json()) as Json).error.code;
const runIds = async (response: Response) => ((await response.json()) as Json).runs.map((r: Json) => r.runId);

describe('workflow runs per caller', () => {
  it("hides a run from another key (404), lists each key's own, and lets an admin key see and act on all", async () => {
    const { call, workflows } = await serve();
    const started = await call(KEY_A, '/workflows/slow/run', { runId: 'a-slow', async: true });
    expect(started.status).toBe(202);
    await expect.poll(() => workflows.get('slow')!.active).toEqual(['a-slow']);
    expect((await call(KEY_B, '/workflows/slow/run', { runId: 'b-slow', async: true })).status).toBe(202);
    await expect.poll(() => workflows.get('slow')!.active.length).toBe(2);

    // B: A's run is not there, whatever B asks of it; A's run goes on.
    const read = await call(KEY_B, '/workflows/runs/a-slow');
    expect(read.status).toBe(404);
    expect(await errorCode(read)).toBe('WORKFLOW_RUN_NOT_FOUND');
    expect(await runIds(await call(KEY_B, '/workflows/slow/runs'))).toEqual(['b-slow']);
    const cancel = await call(KEY_B, '/workflows/runs/a-slow/cancel', {});
    expect(cancel.status).toBe(404);
    expect(await errorCode(cancel)).toBe('WORKFLOW_RUN_NOT_FOUND');
    expect((await call(KEY_B, '/workflows/runs/a-slow/resume', {})).status).toBe(404);
    expect((await call(KEY_B, '/workflows/runs/a-slow/resume', {}, 'text/event-stream')).status).toBe(404);
    expect(workflows.get('slow')!.active).toContain('a-slow');

    // A: its own run, and only its own.
    const mine = await call(KEY_A, '/workflows/runs/a-slow');
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({ runId: 'a-slow', owner: A, status: 'running' });
    expect(await runIds(await call(KEY_A, '/workflows/slow/runs'))).toEqual(['a-slow']);
    expect((await call(KEY_A, '/workflows/runs/b-slow')).status).toBe(404);
    expect((await call(KEY_A, '/workflows/runs/a-slow/cancel', {})).status).toBe(200);
    await expect
      .poll(async () => ((await (await call(KEY_A, '/workflows/runs/a-slow')).json()) as Json).status)
      .toBe('cancelled');
    // Still B's to neither see nor resume once it ended.
    expect((await call(KEY_B, '/workflows/runs/a-slow/resume', { async: true })).status).toBe(404);
    expect((await call(KEY_B, '/workflows/runs/a-slow')).status).toBe(404);

    // The admin key: every run, and acts on them; a resumed run stays its owner's.
    expect((await runIds(await call(KEY_OPS, '/workflows/slow/runs'))).sort()).toEqual(['a-slow', 'b-slow']);
    expect(await (await call(KEY_OPS, '/workflows/runs/b-slow')).json()).toMatchObject({ owner: B });
    expect((await call(KEY_OPS, '/workflows/runs/a-slow/resume', { async: true })).status).toBe(202);
    await expect.poll(() => workflows.get('slow')!.active).toContain('a-slow');
    expect(await (await call(KEY_A, '/workflows/runs/a-slow')).json()).toMatchObject({
      owner: A,
      status: 'running',
      resumes: 1,
    });
    expect((await call(KEY_OPS, '/workflows/runs/a-slow/cancel', {})).status).toBe(200);
    expect((await call(KEY_OPS, '/workflows/runs/b-slow/cancel', {})).status).toBe(200);
    await expect.poll(() => workflows.get('slow')!.active).toEqual([]);

    // Without a key: nothing.
    expect((await call(undefined, '/workflows/runs/a-slow')).status).toBe(401);
  });

  it('keeps a run started without a caller (the CLI, code) for admin keys only', async () => {
    const { call, workflows } = await serve();
    const result = await workflows.get('slow')!.run({}, { runId: 'cli-1', signal: AbortSignal.abort() });
    expect(result.status).toBe('cancelled');
    expect(result.owner).toBeUndefined();
    expect((await call(KEY_A, '/workflows/runs/cli-1')).status).toBe(404);
    expect(await runIds(await call(KEY_A, '/workflows/slow/runs'))).toEqual([]);
    expect((await call(KEY_OPS, '/workflows/runs/cli-1')).status).toBe(200);
  });

  it("runs agent, tool and function steps for the caller: tools see the caller's principal", async () => {
    const { call, writer } = await serve();
    seen.length = 0;
    writer.push({ toolCalls: [{ name: 'whoami' }] }, 'You work for A.');
    const response = await call(KEY_A, '/workflows/who/run', { input: {} });
    expect(response.status).toBe(200);
    const result = (await response.json()) as Json;
    expect(result).toMatchObject({ status: 'completed', owner: A });
    expect(seen).toEqual([A, A]);
    expect(result.output).toMatchObject({ tool: { principal: A }, fn: A });
  });

  it("asks a workflow's approvals of its caller: another key neither sees nor decides them", async () => {
    const { call } = await serve();
    expect((await call(KEY_A, '/workflows/asking/run', { runId: 'ask-a', async: true })).status).toBe(202);
    const pending = async (key: string) =>
      ((await (await call(key, '/approvals')).json()) as Json).approvals as Json[];
    await expect.poll(async () => (await pending(KEY_A)).length).toBe(1);
    expect((await pending(KEY_A))[0]).toMatchObject({ runId: 'ask-a', principal: A, tool: 'add' });
    expect(await pending(KEY_B)).toEqual([]);
    const callId = (await pending(KEY_A))[0].callId;
    const refused = await call(KEY_B, `/runs/ask-a/approvals/${encodeURIComponent(callId)}`, {
      approved: true,
    });
    expect(refused.status).toBe(404);
    const approved = await call(KEY_A, `/runs/ask-a/approvals/${encodeURIComponent(callId)}`, {
      approved: true,
    });
    expect(approved.status).toBe(200);
    await expect
      .poll(async () => ((await (await call(KEY_A, '/workflows/runs/ask-a')).json()) as Json).status)
      .toBe('completed');
  });

  it("keeps an agent step's session per caller: the same session id is another conversation for another key", async () => {
    const { call, writer } = await serve();
    writer.push('noted A', 'noted B', 'noted A again');
    for (const [key, say] of [
      [KEY_A, 'A says one'],
      [KEY_B, 'B says two'],
      [KEY_A, 'A says three'],
    ] as const)
      expect((await call(key, '/workflows/chat/run', { input: { say } })).status).toBe(200);
    const said = writer.requests.map((request) => JSON.stringify(request.messages));
    expect(said[1]).not.toContain('A says one');
    expect(said[2]).toContain('A says one');
    expect(said[2]).not.toContain('B says two');
  });

  it('works as before without API keys: the one local caller owns and sees its runs', async () => {
    const { call, writer, workflows } = await serve(false);
    seen.length = 0;
    writer.push({ toolCalls: [{ name: 'whoami' }] }, 'Local.');
    const result = (await (await call(undefined, '/workflows/who/run', { input: {} })).json()) as Json;
    expect(result).toMatchObject({ status: 'completed', owner: 'local' });
    expect(seen).toEqual(['local', 'local']);
    expect((await call(undefined, `/workflows/runs/${result.runId}`)).status).toBe(200);
    // A run started in code (no caller) is the local server's too.
    await workflows.get('slow')!.run({}, { runId: 'code-1', signal: AbortSignal.abort() });
    expect((await runIds(await call(undefined, '/workflows/slow/runs'))).sort()).toEqual(['code-1']);
    expect((await call(undefined, '/workflows/runs/code-1')).status).toBe(200);
  });
});
