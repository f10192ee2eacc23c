import { describe, expect, it } from 'vitest';
import { HubosError } from '../../../core/index.ts';
import { RoleLeader, RoleWorker, STARS_NAMESPACE, Stars } from '../../../plugins/stars/index.ts';
import { bootCrew, bootTeam } from './helpers.ts';

function caught(fn: () => unknown): HubosError {
  try {
    fn();
  } catch (error) {
    if (HubosError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a HubosError');
}

describe('Stars membership', () => {
  it('joins Cosmos agents with roles, refuses strangers, duplicates and a second leader; leaves', async () => {
    const { cosmos } = await bootTeam();
    await cosmos.create({ agentId: 'boss', templateId: 'lead' });
    await cosmos.create({ agentId: 'boss2', templateId: 'lead' });
    await cosmos.create({ agentId: 'ann', templateId: 'w1' });
    const stars = new Stars(cosmos, 'crew');
    expect(RoleLeader).toBe('leader');
    expect(RoleWorker).toBe('worker');
    expect(stars.join('boss', RoleLeader)).toEqual({
      agentId: 'boss',
      role: 'leader',
      description: 'Plans and delegates',
    });
    stars.join('ann', RoleWorker);
    expect(stars.members()).toEqual([
      { agentId: 'boss', role: 'leader', description: 'Plans and delegates' },
      { agentId: 'ann', role: 'worker', description: 'Researches' },
    ]);

    const stranger = caught(() => stars.join('ghost', RoleWorker));
    expect(stranger.code).toBe('STARS_AGENT_NOT_FOUND');
    expect(stranger.message).toContain('no agent "ghost" in Cosmos');
    // A configured agent (not Cosmos's) cannot join either.
    expect(caught(() => stars.join('lead', RoleWorker)).code).toBe('STARS_AGENT_NOT_FOUND');
    const twice = caught(() => stars.join('ann', RoleWorker));
    expect([twice.code, twice.status]).toEqual(['STARS_MEMBER_EXISTS', 409]);
    const second = caught(() => stars.join('boss2', RoleLeader));
    expect([second.code, second.status]).toEqual(['STARS_LEADER_EXISTS', 409]);
    expect(second.message).toContain('"boss" is already the leader');
    expect(caught(() => stars.join('boss2', 'captain' as never)).code).toBe('STARS_INVALID');

    expect(stars.leave('boss')).toBe(true);
    expect(stars.leave('boss')).toBe(false);
    expect(stars.leader).toBeUndefined();
    stars.join('boss2', RoleLeader);
    expect(stars.members().map((m) => [m.agentId, m.role])).toEqual([
      ['ann', 'worker'],
      ['boss2', 'leader'],
    ]);
  });
});

describe('Stars messages', () => {
  it('delivers point to point and broadcasts to every other member; history is in order', async () => {
    const { stars } = await bootCrew();
    stars.send('leader', 'alice', 'hi alice');
    stars.broadcast('bob', 'hello all');
    stars.send('alice', 'bob', 'hi bob');
    expect(stars.inbox('alice').map((m) => m.content)).toEqual(['hi alice', 'hello all']);
    expect(stars.inbox('bob').map((m) => m.content)).toEqual(['hi bob']);
    expect(stars.inbox('leader').map((m) => [m.from, m.to, m.content])).toEqual([['bob', '*', 'hello all']]);
    expect(stars.history().map((m) => [m.seq, m.from, m.to, m.content])).toEqual([
      [1, 'leader', 'alice', 'hi alice'],
      [2, 'bob', '*', 'hello all'],
      [3, 'alice', 'bob', 'hi bob'],
    ]);
    expect(stars.takeInbox('alice')).toHaveLength(2);
    expect(stars.inbox('alice')).toEqual([]);

    expect(caught(() => stars.send('leader', 'zed', 'x')).code).toBe('STARS_NOT_MEMBER');
    expect(caught(() => stars.send('zed', 'alice', 'x')).code).toBe('STARS_NOT_MEMBER');
    expect(caught(() => stars.broadcast('zed', 'x')).code).toBe('STARS_NOT_MEMBER');
    expect(caught(() => stars.send('leader', 'alice', '')).code).toBe('STARS_INVALID');
    expect(stars.history()).toHaveLength(3);
  });

  it('bounds the history (configurable) and keeps it in the store', async () => {
    const { cosmos, kernel } = await bootTeam();
    await cosmos.create({ agentId: 'a', templateId: 'w1' });
    await cosmos.create({ agentId: 'b', templateId: 'w2' });
    const stars = new Stars(cosmos, 'pair', { historyLimit: 3, store: kernel.store });
    stars.join('a', RoleWorker);
    stars.join('b', RoleWorker);
    for (let i = 1; i <= 5; i++) stars.send('a', 'b', `m${i}`);
    expect(stars.history().map((m) => m.content)).toEqual(['m3', 'm4', 'm5']);
    expect(stars.inbox('b').map((m) => m.content)).toEqual(['m3', 'm4', 'm5']);
    await stars.flush();
    const saved = (await kernel.store.get(STARS_NAMESPACE, 'pair')) as { messages: { content: string }[] };
    expect(saved.messages.map((m) => m.content)).toEqual(['m3', 'm4', 'm5']);

    const again = new Stars(cosmos, 'pair', { historyLimit: 3, store: kernel.store });
    await again.load();
    expect(again.history().map((m) => [m.seq, m.content])).toEqual([
      [3, 'm3'],
      [4, 'm4'],
      [5, 'm5'],
    ]);
    expect(() => new Stars(cosmos, 'bad', { historyLimit: 0 })).toThrow(/historyLimit/);
  });
});
