import { afterEach, describe, expect, it } from 'vitest';
import {
  defineTool,
  type ElicitResult,
  type Kernel,
  MemoryStore,
  type Plugin,
  type StoreValue,
  toolOutput,
} from '../../../core/index.ts';
import { HubOS, type HubOSOptions } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { API_KEYS, callAs, KEY_A, KEY_B } from '../../helpers/keys.ts';
import { parseSSE, post } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    copies: { type: 'integer', minimum: 1, default: 1 },
  },
  required: ['name'],
} as const;

/** `order` asks a question, logs, and answers with an image and what it was told. */
function orderTools(answers: ElicitResult[]): Plugin {
  return {
    name: 'order-tools',
    apply(kernel) {
      kernel.hooks.registerTools.tap('order-tools', (registry) =>
        registry.register(
          defineTool({
            name: 'order',
            description: 'Orders prints, asking for the name.',
            inputSchema: { type: 'object', properties: {} },
            handler: async (_ctx, tc) => {
              tc.log('info', 'asking for the name', { step: 1 });
              const answer = await tc.elicit({ message: 'Whose name goes on the print?', schema: SCHEMA });
              answers.push(answer);
              return toolOutput({
                content: [
                  { type: 'text', text: `answer: ${JSON.stringify(answer)}` },
                  { type: 'image', data: PNG, mimeType: 'image/png' },
                ],
              });
            },
          }),
        ),
      );
    },
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(script: ScriptStep[], options: HubOSOptions = {}) {
  const answers: ElicitResult[] = [];
  const kernel: Kernel = await bootKernel({
    plugins: [orderTools(answers)],
    config: { agents: { helper: { model: new ScriptedModel(script), tools: ['*'] } } },
  });
  const hubos = new HubOS({
    kernel,
    name: 'test',
    port: 0,
    rateLimit: false,
    shutdownTimeoutMs: 50,
    ...options,
  });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  closers.push(async () => {
    await hubos.close();
    await kernel.close();
  });
  return { url, hubos, answers };
}

const orderCall: ScriptStep = { toolCalls: [{ name: 'order', id: 'c1' }] };

async function pendingQuestion(url: string, runId: string, as = callAs()): Promise<Json> {
  for (let i = 0; i < 400; i++) {
    const { json } = await as(`${url}/api/runs/${runId}/approvals`);
    if (json.approvals?.length) return json.approvals[0];
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('no question came');
}

describe("a tool's question over REST", () => {
  it('lists it with its question, refuses an answer that does not fit (400), takes one that does', async () => {
    const { url, hubos, answers } = await serve([orderCall, 'Ordered.']);
    const as = callAs();
    const started = await as(`${url}/api/agents/helper/run?async=true`, 'POST', { input: 'order' });
    const { runId } = started.json;
    const asked = await pendingQuestion(url, runId);
    expect(asked).toMatchObject({
      runId,
      callId: 'c1.ask-1',
      tool: 'order',
      status: 'pending',
      live: true,
      question: { message: 'Whose name goes on the print?', schema: SCHEMA },
    });

    const decide = (body: unknown) => as(`${url}/api/runs/${runId}/approvals/c1.ask-1`, 'POST', body);
    const wrong = await decide({ approved: true, content: { name: '', copies: 0 } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.code).toBe('APPROVAL_ANSWER_INVALID');
    expect(wrong.json.error.message).toContain('name');
    expect(wrong.json.error.message).toContain('copies');
    const none = await decide({ approved: true });
    expect(none.status).toBe(400);
    expect(none.json.error.message).toContain('name');
    const notAnObject = await decide({ approved: true, content: ['Ada'] });
    expect(notAnObject.status).toBe(400);
    expect(notAnObject.json.error.code).toBe('INVALID_BODY');
    expect((await pendingQuestion(url, runId)).status).toBe('pending');

    const answered = await decide({ approved: true, content: { name: 'Ada' } });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ status: 'approved', answer: { name: 'Ada', copies: 1 } });
    const record = await hubos.runs.wait(runId);
    expect(answers).toEqual([{ action: 'accept', content: { name: 'Ada', copies: 1 } }]);

    // The record (and the run route) keep the rich result's parts.
    const { json: run } = await as(`${url}/api/runs/${runId}`);
    expect(run.result.toolCalls[0].content).toEqual([
      { type: 'text', text: 'answer: {"action":"accept","content":{"name":"Ada","copies":1}}' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
    expect(record!.result!.toolCalls[0]!.content).toEqual(run.result.toolCalls[0].content);
    const { json: all } = await as(`${url}/api/runs/${runId}/approvals?all=true`);
    expect(all.approvals[0]).toMatchObject({ status: 'approved', answer: { name: 'Ada', copies: 1 } });
  });

  it('declines with approved: false, and the SSE stream carries the question, the log and the parts', async () => {
    const { url, answers } = await serve([orderCall, 'Not ordered.']);
    const streaming = post(
      `${url}/api/agents/helper/run`,
      { input: 'order' },
      { accept: 'text/event-stream' },
    );
    let asked: Json;
    for (let i = 0; i < 400 && !asked; i++) {
      asked = ((await (await fetch(`${url}/api/approvals`)).json()) as Json).approvals[0];
      if (!asked) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const declined = await post(`${url}/api/runs/${asked.runId}/approvals/${asked.callId}`, {
      approved: false,
      reason: 'no prints today',
    });
    expect(declined.status).toBe(200);
    const events = parseSSE(await (await streaming).text());
    expect(answers).toEqual([{ action: 'decline', reason: 'no prints today' }]);
    const byType = (type: string) => events.find((event) => event.event === type)?.data as Json;
    expect(byType('tool-log')).toMatchObject({
      callId: 'c1',
      level: 'info',
      message: 'asking for the name',
      data: { step: 1 },
    });
    expect(byType('approval-request')).toMatchObject({
      callId: 'c1.ask-1',
      question: { message: 'Whose name goes on the print?', schema: SCHEMA },
    });
    expect(byType('approval-result')).toMatchObject({ status: 'denied', reason: 'no prints today' });
    expect(byType('tool-result').call.content[1]).toEqual({
      type: 'image',
      data: PNG,
      mimeType: 'image/png',
    });

    // The JSON answer of a run route shows the parts too.
    const { url: url2 } = await serve([orderCall, 'Ordered.']);
    const json = post(`${url2}/api/agents/helper/run`, { input: 'order' });
    let second: Json;
    for (let i = 0; i < 400 && !second; i++) {
      second = ((await (await fetch(`${url2}/api/approvals`)).json()) as Json).approvals[0];
      if (!second) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await post(`${url2}/api/runs/${second.runId}/approvals/${second.callId}`, {
      approved: true,
      content: { name: 'Bo' },
    });
    const result = (await (await json).json()) as Json;
    expect(result.toolCalls[0].content[1]).toEqual({ type: 'image', data: PNG, mimeType: 'image/png' });
  });

  it('another key neither sees nor answers the question (404); the body limit holds for answers', async () => {
    const { url } = await serve([orderCall, 'Ordered.'], { apiKeys: API_KEYS, bodyLimit: 4096 });
    const a = callAs(KEY_A);
    const b = callAs(KEY_B);
    const { runId } = (await a(`${url}/api/agents/helper/run?async=true`, 'POST', { input: 'order' })).json;
    const asked = await pendingQuestion(url, runId, a);
    expect((await b(`${url}/api/runs/${runId}/approvals`)).status).toBe(404);
    const stolen = await b(`${url}/api/runs/${runId}/approvals/${asked.callId}`, 'POST', {
      approved: true,
      content: { name: 'Mallory' },
    });
    expect(stolen.status).toBe(404);
    const huge = await a(`${url}/api/runs/${runId}/approvals/${asked.callId}`, 'POST', {
      approved: true,
      content: { name: 'x'.repeat(10_000) },
    });
    expect(huge.status).toBe(413);
    const deep = await a(`${url}/api/runs/${runId}/approvals/${asked.callId}`, 'POST', {
      approved: true,
      content: { name: 'Ada', extra: JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`) },
    });
    expect(deep.status).toBe(400);
    expect(deep.json.error.code).toBe('JSON_TOO_COMPLEX');
    expect((await pendingQuestion(url, runId, a)).status).toBe('pending');
    const answered = await a(`${url}/api/runs/${runId}/approvals/${asked.callId}`, 'POST', {
      approved: true,
      content: { name: 'Ada' },
    });
    expect(answered.json.answer).toEqual({ name: 'Ada', copies: 1 });
  });

  it("another key cannot answer a question whose record never reached the store (the live request's owner is checked)", async () => {
    // The store refuses approvals: the request lives only in the waiting run.
    class NoApprovalsStore extends MemoryStore {
      override async set(namespace: string, key: string, value: StoreValue): Promise<void> {
        if (namespace === 'approvals') throw new Error('disk full');
        return super.set(namespace, key, value);
      }
    }
    const answers: ElicitResult[] = [];
    const kernel = await bootKernel({
      store: new NoApprovalsStore(),
      plugins: [orderTools(answers)],
      config: { agents: { helper: { model: new ScriptedModel([orderCall, 'Ordered.']), tools: ['*'] } } },
    });
    const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false, apiKeys: API_KEYS });
    hubos.registerAgent('helper', kernel.agent('helper'));
    const url = await hubos.serve();
    closers.push(async () => {
      await hubos.close();
      await kernel.close();
    });
    const a = callAs(KEY_A);
    const { runId } = (await a(`${url}/api/agents/helper/run?async=true`, 'POST', { input: 'order' })).json;
    while (!kernel.approvals.isWaiting(runId, 'c1.ask-1'))
      await new Promise((resolve) => setTimeout(resolve, 10));
    const stolen = await callAs(KEY_B)(`${url}/api/runs/${runId}/approvals/c1.ask-1`, 'POST', {
      approved: true,
      content: { name: 'Mallory' },
    });
    expect(stolen.status).toBe(404);
    const answered = await a(`${url}/api/runs/${runId}/approvals/c1.ask-1`, 'POST', {
      approved: true,
      content: { name: 'Ada' },
    });
    expect(answered.status).toBe(200);
    await hubos.runs.wait(runId);
    expect(answers).toEqual([{ action: 'accept', content: { name: 'Ada', copies: 1 } }]);
  });

  it('the OpenAPI document says how to answer a question', async () => {
    const { url } = await serve([]);
    const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as Json;
    const decide = doc.paths['/api/runs/{id}/approvals/{callId}'].post;
    expect(decide.summary).toContain('content');
    expect(JSON.stringify(decide.requestBody)).toContain('APPROVAL_ANSWER_INVALID');
    expect(decide.responses['400'].description).toContain('APPROVAL_ANSWER_INVALID');
  });
});
