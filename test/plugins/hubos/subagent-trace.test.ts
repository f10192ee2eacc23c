// A run whose agent delegates to a sub-agent, over a real socket: its steps show the sub-agent's
// model and tool calls on a track of their own, and each opens with its payload.
import { afterEach, expect, it } from 'vitest';
import type { RunStep } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import subagent from '../../../plugins/subagent/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { testTools } from './helpers.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const KEY = 'k'.repeat(32);
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

it("shows a sub-agent's steps on their track in the run's steps", async () => {
  // The lead and its general-purpose sub-agent share the model: its script is both their turns.
  const model = new ScriptedModel([
    {
      toolCalls: [
        {
          id: 't1',
          name: 'task',
          input: { description: 'Echo the word ping back', subagent_type: 'general-purpose' },
        },
      ],
    },
    { toolCalls: [{ name: 'echo', input: { text: 'ping' } }] },
    'The echo said ping.',
    'Done: ping.',
  ]);
  const kernel = await bootKernel({
    plugins: [testTools, subagent()],
    config: { agents: { lead: { description: 'Delegates', model, tools: ['task', 'echo'] } } },
  });
  const hubos = new HubOS({
    kernel,
    name: 'trace',
    port: 0,
    rateLimit: false,
    apiKeys: [{ key: KEY, id: 'alice' }],
  });
  hubos.registerAgent('lead', kernel.agent('lead'));
  const url = await hubos.serve();
  closers.push(async () => {
    await hubos.close();
    await kernel.close();
  });

  const ran = await fetch(`${url}/api/agents/lead/run`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ input: 'go' }),
  });
  const answer = (await ran.json()) as { runId: string; text: string };
  expect(ran.status, JSON.stringify(answer)).toBe(200);
  expect(answer.text).toBe('Done: ping.');

  const listed = (await (await fetch(`${url}/api/runs/${answer.runId}/steps`, { headers })).json()) as {
    steps: RunStep[];
  };
  const rows = listed.steps.map((s) => [s.seq, s.kind, s.name, s.track?.label ?? null]);
  expect(rows).toEqual([
    [1, 'model', expect.any(String), null],
    [2, 'model', expect.any(String), 'task general-purpose: Echo the word ping back'],
    [3, 'tool', 'echo', 'task general-purpose: Echo the word ping back'],
    [4, 'model', expect.any(String), 'task general-purpose: Echo the word ping back'],
    [5, 'tool', 'task', null],
    [6, 'model', expect.any(String), null],
  ]);
  const child = listed.steps[1]!.track!;
  expect(child).toMatchObject({ kind: 'subagent', callId: 't1' });
  expect(child.runId).not.toBe(answer.runId);
  expect(child.parentRunId).toBeUndefined();
  for (const step of listed.steps) expect(step.runId).toBe(answer.runId);

  const echo = (await (await fetch(`${url}/api/runs/${answer.runId}/steps/3`, { headers })).json()) as {
    payload: { input: unknown; output: unknown };
  };
  expect(echo.payload).toEqual({ input: { text: 'ping' }, output: { echoed: 'ping' } });
  // What the sub-agent's last model call was sent, rebuilt from its track: its task, its call, the echo.
  const last = (await (await fetch(`${url}/api/runs/${answer.runId}/steps/4`, { headers })).json()) as {
    payload: { answer: { text: string }; sent: { role: string; content: string }[] };
  };
  expect(last.payload.answer.text).toBe('The echo said ping.');
  expect(last.payload.sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  expect(last.payload.sent[0]!.content).toBe('Echo the word ping back');
});
