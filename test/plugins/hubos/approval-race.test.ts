import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defineTool, type ElicitResult, type Kernel, type Plugin, SqliteStore } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { post } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

// Decisions on one approval sent at once to one server (on SQLite): one is recorded and answered
// 200, every other one 409 APPROVAL_DECIDED naming the winner, and the run acts on the winner.

const TRIALS = 6;

/** What the tools did: `write` ran with this text; `order` was answered so. */
const wrote: string[] = [];
const answers: ElicitResult[] = [];

const raceTools: Plugin = {
  name: 'race-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('race-tools', (registry) => {
      registry.register(
        defineTool({
          name: 'write',
          description: 'Writes a note.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          permissions: ['fs:write'],
          handler: (_ctx, { input }) => {
            wrote.push(String(input.text));
            return { wrote: input.text };
          },
        }),
      );
      registry.register(
        defineTool({
          name: 'order',
          description: 'Asks whose name goes on the order.',
          inputSchema: { type: 'object', properties: {} },
          handler: async (_ctx, tc) => {
            const answer = await tc.elicit({
              message: 'Whose name?',
              schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            });
            answers.push(answer);
            return { answer };
          },
        }),
      );
    });
  },
};

const dir = mkdtempSync(join(tmpdir(), 'hubos-approval-race-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let closing: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closing?.();
  closing = undefined;
  wrote.length = 0;
  answers.length = 0;
});

async function serve(script: ScriptStep[], file: string): Promise<{ url: string; hubos: HubOS }> {
  const kernel: Kernel = await bootKernel({
    plugins: [raceTools],
    store: new SqliteStore(join(dir, file)),
    config: {
      permissions: { ask: ['fs:write'] },
      agents: { helper: { model: new ScriptedModel(script), tools: ['*'] } },
    },
  });
  const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false, shutdownTimeoutMs: 50 });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  closing = async () => {
    await hubos.close();
    await kernel.close();
  };
  return { url, hubos };
}

async function pendingCall(url: string, runId: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const body = (await (await fetch(`${url}/api/runs/${runId}/approvals`)).json()) as Json;
    if (body.approvals?.length) return body.approvals[0].callId;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`run ${runId} asked for nothing`);
}

/** Sends every decision at once; resolves with each answer's status and body, in order. */
async function decideAtOnce(url: string, runId: string, callId: string, decisions: Json[]) {
  return Promise.all(
    decisions.map(async (decision) => {
      const response = await post(`${url}/api/runs/${runId}/approvals/${callId}`, decision);
      return { status: response.status, body: (await response.json()) as Json };
    }),
  );
}

/** Exactly one 200; the rest 409 APPROVAL_DECIDED naming the winner's status. Returns the winner. */
function oneWinner(answers: { status: number; body: Json }[], what: string): Json {
  const won = answers.filter((answer) => answer.status === 200);
  expect(won, what).toHaveLength(1);
  const winner = won[0]!.body;
  for (const lost of answers.filter((answer) => answer.status !== 200)) {
    expect(lost.status, what).toBe(409);
    expect(lost.body.error.code, what).toBe('APPROVAL_DECIDED');
    expect(lost.body.approval.status, what).toBe(winner.status);
  }
  return winner;
}

describe('decisions sent at once to one server', () => {
  it('records one approval or denial, answers the others 409, and the run follows it', async () => {
    const script: ScriptStep[] = [];
    for (let i = 0; i < TRIALS; i++)
      script.push({ toolCalls: [{ name: 'write', input: { text: `t${i}` }, id: `c${i}` }] }, `done ${i}`);
    const { url, hubos } = await serve(script, 'approvals.db');
    for (let i = 0; i < TRIALS; i++) {
      const started = await post(`${url}/api/agents/helper/run?async=true`, { input: 'go' });
      const { runId } = (await started.json()) as Json;
      const callId = await pendingCall(url, runId);
      const results = await decideAtOnce(url, runId, callId, [
        { approved: i % 2 === 0 },
        { approved: i % 2 !== 0, reason: 'no' },
        { approved: true },
        { approved: false },
      ]);
      const what = `trial ${i}: ${JSON.stringify(results.map((r) => [r.status, r.body.status ?? r.body.error?.code]))}`;
      const winner = oneWinner(results, what);
      expect((await hubos.runs.wait(runId))?.status, what).toBe('completed');
      expect(wrote.includes(`t${i}`), what).toBe(winner.status === 'approved');
      const all = (await (await fetch(`${url}/api/runs/${runId}/approvals?all=true`)).json()) as Json;
      expect(all.approvals, what).toMatchObject([{ callId, status: winner.status }]);
    }
  });

  it("answers a tool's question once: one answer or decline is taken, the others get 409", async () => {
    const script: ScriptStep[] = [];
    for (let i = 0; i < TRIALS; i++)
      script.push({ toolCalls: [{ name: 'order', id: `q${i}` }] }, `ordered ${i}`);
    const { url, hubos } = await serve(script, 'questions.db');
    for (let i = 0; i < TRIALS; i++) {
      const started = await post(`${url}/api/agents/helper/run?async=true`, { input: 'order' });
      const { runId } = (await started.json()) as Json;
      const callId = await pendingCall(url, runId);
      const results = await decideAtOnce(url, runId, callId, [
        { approved: true, content: { name: `Ada ${i}` } },
        { approved: false },
        { approved: true, content: { name: `Bob ${i}` } },
      ]);
      const what = `trial ${i}: ${JSON.stringify(results.map((r) => [r.status, r.body.status ?? r.body.error?.code]))}`;
      const winner = oneWinner(results, what);
      expect((await hubos.runs.wait(runId))?.status, what).toBe('completed');
      const expected =
        winner.status === 'approved' ? { action: 'accept', content: winner.answer } : { action: 'decline' };
      expect(answers.at(-1), what).toMatchObject(expected);
      expect(answers, what).toHaveLength(i + 1);
    }
  });
});
