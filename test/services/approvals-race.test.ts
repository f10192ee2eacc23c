// "approve" sent to one instance and "deny" to another at the same moment: one decision wins in the
// shared store, its request answers 200, the other answers 409 APPROVAL_DECIDED, and the run follows
// the winner. Trials alternate which instance runs the run and which decision goes where.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRun, postJson, request, waitForRun } from './helpers/http.ts';
import { Cluster, type ServeProcess } from './helpers/instances.ts';
import { pollUntil } from './helpers/poll.ts';

const TRIALS = 16;

const cluster = new Cluster();
let a: ServeProcess;
let b: ServeProcess;

beforeAll(async () => {
  [a, b] = await Promise.all([cluster.start({ name: 'A' }), cluster.start({ name: 'B' })]);
}, 60_000);

afterAll(() => cluster.cleanup(), 60_000);

/** Starts an `asker` run and waits until its approval is pending: the run id, the call id and who runs it. */
async function pendingApproval(input: string) {
  const queued = await postJson(`${a.url}/api/agents/asker/run?async=true`, { input });
  expect(queued.status, queued.text).toBe(202);
  const runId = queued.body.runId as string;
  const [pending] = await pollUntil(
    `run ${runId}'s approval request`,
    async () => (await request(`${b.url}/api/runs/${runId}/approvals`)).body?.approvals ?? [],
    (approvals: { callId: string }[]) => approvals.length === 1,
  );
  const runner = cluster.byInstanceId((await getRun(a.url, runId)).instance);
  expect(runner, cluster.describe()).toBeDefined();
  return { runId, callId: pending!.callId, runner: runner!, other: runner === a ? b : a };
}

describe('one approval decided on two instances at once', () => {
  it('answers 200 to one decision and 409 APPROVAL_DECIDED to the other, and the run follows the winner', async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const { runId, callId, runner, other } = await pendingApproval(`trial ${trial}`);
      // Half the trials send the approval to the instance that runs the run, half the denial.
      const [approveAt, denyAt] = trial % 2 === 0 ? [runner, other] : [other, runner];
      const path = `/api/runs/${runId}/approvals/${callId}`;
      const [approved, denied] = await Promise.all([
        postJson(`${approveAt.url}${path}`, { approved: true }),
        postJson(`${denyAt.url}${path}`, { approved: false, reason: 'no' }),
      ]);
      const what = `trial ${trial}: approve at ${approveAt.name} → ${approved.status} ${approved.text}; deny at ${denyAt.name} → ${denied.status} ${denied.text}`;
      expect([approved.status, denied.status].sort(), what).toEqual([200, 409]);
      const [winner, loser] = approved.status === 200 ? [approved, denied] : [denied, approved];
      const status = approved.status === 200 ? 'approved' : 'denied';
      expect(winner.body, what).toMatchObject({ runId, callId, status });
      expect(loser.body.error.code, what).toBe('APPROVAL_DECIDED');
      expect(loser.body.approval, what).toMatchObject({ callId, status });

      const done = await waitForRun(a.url, runId);
      expect(done.status, what).toBe('completed');
      const tool = status === 'approved' ? 'ok:trial' : 'denied';
      expect(done.result?.text, what).toContain(tool);
      expect(runner.output.stdout.includes(`guarded-ran ${runId}`), what).toBe(status === 'approved');
      const stored = await request(`${other.url}/api/runs/${runId}/approvals?all=true`);
      expect(stored.body.approvals, what).toEqual([expect.objectContaining({ callId, status })]);
    }
  }, 180_000);
});
