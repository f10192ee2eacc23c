// A Stars team run's steps: each member's model calls, on a track named by member and role, in
// the team run's one list.
import { expect, it } from 'vitest';
import type { RunRecord, RunStep } from '../../../core/index.ts';
import { serveCrew } from './helpers.ts';

it("shows each member's steps on its track in the team run's steps", async () => {
  const { url } = await serveCrew({
    lead: [
      { toolCalls: [{ name: 'stars_delegate', input: { tasks: [{ worker: 'crew-w1', task: 'go' }] } }] },
      'All done.',
    ],
    w1: ['worked'],
  });
  const ran = await fetch(`${url}/api/stars/crew/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: 'Do it.' }),
  });
  expect(ran.status).toBe(200);
  const { runs } = (await (await fetch(`${url}/api/runs?agent=stars:crew`)).json()) as { runs: RunRecord[] };
  expect(runs).toHaveLength(1);
  const { steps } = (await (await fetch(`${url}/api/runs/${runs[0]!.id}/steps`)).json()) as {
    steps: RunStep[];
  };
  expect(steps.map((s) => [s.seq, s.kind, s.track?.kind, s.track?.label])).toEqual([
    [1, 'model', 'member', 'crew-lead (leader)'],
    [2, 'model', 'member', 'crew-w1 (worker)'],
    [3, 'model', 'member', 'crew-lead (leader)'],
  ]);
  expect(steps[1]!.preview).toEqual({ output: 'worked' });
  // Each of a member's turns is a run of its own: its track names it.
  expect(new Set(steps.map((s) => s.track!.runId)).size).toBe(3);
  const answer = (await (await fetch(`${url}/api/runs/${runs[0]!.id}/steps/3`)).json()) as {
    payload: { answer: { text: string } };
  };
  expect(answer.payload.answer.text).toBe('All done.');
});
