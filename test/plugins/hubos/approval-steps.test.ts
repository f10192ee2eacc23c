// A tool call the policy asks about, approved through the REST route: its step says what the
// policy said (ask, and the rule) and who approved it, when.
import { afterEach, expect, it } from 'vitest';
import type { RunStep } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { testTools } from './helpers.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const KEY = 'a'.repeat(32);
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

it("records a tool call's permission verdict and who approved it", async () => {
  const kernel = await bootKernel({
    plugins: [testTools],
    config: {
      permissions: { ask: ['echo'] },
      agents: {
        helper: {
          model: new ScriptedModel([
            { toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'hi' } }] },
            'Done.',
          ]),
          tools: ['echo'],
        },
      },
    },
  });
  const hubos = new HubOS({
    kernel,
    name: 't',
    port: 0,
    rateLimit: false,
    apiKeys: [{ key: KEY, id: 'alice' }],
  });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  closers.push(async () => {
    await hubos.close();
    await kernel.close();
  });
  const started = await fetch(`${url}/api/agents/helper/run?async=true`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ input: 'go' }),
  });
  const { runId } = (await started.json()) as { runId: string };
  for (let i = 0; i < 400; i++) {
    const { approvals } = (await (await fetch(`${url}/api/runs/${runId}/approvals`, { headers })).json()) as {
      approvals: unknown[];
    };
    if (approvals.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const before = Date.now();
  const decided = await fetch(`${url}/api/runs/${runId}/approvals/c1`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ approved: true, reason: 'fine by me' }),
  });
  expect(decided.status).toBe(200);
  expect(await hubos.runs.wait(runId)).toMatchObject({ status: 'completed' });
  const { steps } = (await (await fetch(`${url}/api/runs/${runId}/steps`, { headers })).json()) as {
    steps: RunStep[];
  };
  const tool = steps.find((step) => step.kind === 'tool')!;
  expect(tool).toMatchObject({
    name: 'echo',
    permission: { decision: 'ask', rule: 'echo' },
    approval: { approved: true, by: 'alice', reason: 'fine by me' },
  });
  expect(Date.parse(tool.approval!.at)).toBeGreaterThanOrEqual(before - 1000);
  expect(steps.find((step) => step.kind === 'model')!.permission).toBeUndefined();
});
