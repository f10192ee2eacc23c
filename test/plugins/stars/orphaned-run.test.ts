// A team run is a recorded run of the kernel's engine. It keeps no steps to resume from (its members
// talk to each other within the run, in memory), so one whose instance died ends `interrupted`,
// and its record says why, on the first instance that finds it.
import { describe, expect, it } from 'vitest';
import { TEAM_RUN_NOT_RESUMED } from '../../../plugins/stars/team-run-takeover.ts';
import { serveCrew } from './helpers.ts';

describe('a Stars team run whose instance died', () => {
  it('is recorded in kernel.runs, and ends interrupted saying a team run does not resume', async () => {
    const { url, kernel } = await serveCrew({ lead: ['Done alone.'] });
    const ran = await fetch(`${url}/api/stars/crew/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task: 'Do it.' }),
    });
    expect(ran.status).toBe(200);
    const [recorded] = await kernel.runs.list(
      { id: 'local', kind: 'local' },
      { agent: 'stars:crew', limit: 10 },
    );
    expect(recorded).toMatchObject({ status: 'completed', via: 'stars', resumable: true });

    // What an instance killed in the middle of a team run leaves: its record running, no heartbeat.
    const table = await kernel.runs.table();
    const now = new Date().toISOString();
    await table.insert({
      id: 'team-orphan',
      agent: 'stars:crew',
      owner: 'local',
      status: 'running',
      via: 'stars',
      instance: 'killed-instance',
      steps: 0,
      createdAt: now,
      startedAt: now,
      resumable: true,
    });
    await kernel.runs.sweep();
    const orphan = await kernel.runs.get('team-orphan');
    expect(orphan).toMatchObject({ status: 'interrupted', error: { code: 'RUN_INTERRUPTED' } });
    expect(orphan!.error!.message).toContain('killed-instance');
    expect(orphan!.error!.message).toContain(TEAM_RUN_NOT_RESUMED);
    // Ended: nothing of it is left running for another instance to take.
    expect((await table.activeElsewhere('nobody')).map((record) => record.id)).toEqual([]);
  });
});
