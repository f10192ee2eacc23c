import { describe, expect, it } from 'vitest';
import { type Message, Sessions, type Store } from '../../core/index.ts';
import { openSessionTable } from '../../core/runs/open-run-table.ts';
import { searchTerms } from '../../core/sessions/session-table.ts';

const DAY = 86_400_000;
const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string): Message => ({ role: 'assistant', content });

/** A session message key as the release before the sessions tables wrote it, at `at`. */
export const storedMessageKey = (session: string, at: number, n: number): string =>
  `${session}/${String(at).padStart(15, '0')}-${String(n).padStart(12, '0')}-0000abcd`;

/** One key/value entry as the release before the sessions tables kept it. */
export interface OldEntry {
  namespace: string;
  key: string;
  value: unknown;
}

export interface SessionTableStores {
  /** A store of this kind, fresh. */
  fresh(): Promise<Store>;
  /** Another handle on the same data (another process's, or the same store where there is one). */
  another(store: Store): Promise<Store>;
  /** A store the previous release wrote with `entries`, opened by two handles at once. */
  previous(entries: readonly OldEntry[]): Promise<[Store, Store]>;
}

/** What the sessions tables do, whichever database holds them. */
export function sessionTableContract(name: string, stores: SessionTableStores): void {
  describe(`${name} sessions table`, () => {
    it('loads a session in append order, only its last messages with a limit, never a nested one', async () => {
      const table = await openSessionTable(await stores.fresh());
      for (let n = 0; n < 30; n++) {
        await table.append('helper', 'a', 'local', [user(`u${n}`), assistant(`a${n}`)]);
        // "a/b" and "ab" are other sessions, written in between.
        await table.append('helper', 'a/b', 'local', [user(`nested ${n}`)]);
      }
      await table.append('helper', 'ab', 'local', [user('beside')]);
      await table.append('other', 'a', 'local', [user('another agent')]);
      const all = await table.load('helper', 'a');
      expect(all).toHaveLength(60);
      expect(all.slice(0, 3)).toEqual([user('u0'), assistant('a0'), user('u1')]);
      expect(await table.load('helper', 'a', 3)).toEqual([assistant('a28'), user('u29'), assistant('a29')]);
      expect(await table.load('helper', 'a', 0)).toEqual([]);
      expect(await table.load('helper', 'a/b', 2)).toEqual([user('nested 28'), user('nested 29')]);
      expect(await table.load('helper', 'missing')).toEqual([]);
      expect(await table.load('other', 'a')).toEqual([user('another agent')]);
      await expect(table.load('helper', 'a', -1)).rejects.toThrow(/limit must be an integer/);
    });

    it('reads a page of a session from its count, whatever its length, never a nested one', async () => {
      const table = await openSessionTable(await stores.fresh());
      for (let n = 0; n < 30; n++) {
        await table.append('helper', 'a', 'local', [user(`u${n}`), assistant(`a${n}`)]);
        await table.append('helper', 'a/b', 'local', [user(`nested ${n}`)]);
      }
      expect(await table.page('helper', 'a', 0, 2)).toEqual({
        total: 60,
        messages: [user('u0'), assistant('a0')],
      });
      expect(await table.page('helper', 'a', 57, 10)).toEqual({
        total: 60,
        messages: [assistant('a28'), user('u29'), assistant('a29')],
      });
      expect(await table.page('helper', 'a', 60, 10)).toEqual({ total: 60, messages: [] });
      expect(await table.page('helper', 'a', 0, 0)).toEqual({ total: 60, messages: [] });
      expect(await table.page('helper', 'missing', 0, 5)).toEqual({ total: 0, messages: [] });
      await expect(table.page('helper', 'a', -1, 5)).rejects.toThrow(/limit must be an integer/);
    });

    it('keeps every message of concurrent appends to one session, each append in order and whole', async () => {
      const store = await stores.fresh();
      const [one, two] = [await openSessionTable(store), await openSessionTable(await stores.another(store))];
      // Two writers at once, each appending 40 times 3 messages, one append after another (as a run
      // appends its steps), and 20 more appends all at once from the first.
      const write = async (table: typeof one, w: number) => {
        for (let i = 0; i < 40; i++)
          await table.append('helper', 's', 'alice', [
            user(`w${w}-${i}-0`),
            user(`w${w}-${i}-1`),
            user(`w${w}-${i}-2`),
          ]);
      };
      await Promise.all([
        write(one, 0),
        write(two, 1),
        ...Array.from({ length: 20 }, (_, i) =>
          one.append('helper', 's', 'alice', [user(`x-${i}-0`), user(`x-${i}-1`), user(`x-${i}-2`)]),
        ),
      ]);
      const loaded = (await one.load('helper', 's')).map((message) => message.content as string);
      expect(loaded).toHaveLength(300);
      expect(new Set(loaded).size).toBe(300);
      // Each append's messages are together and in order.
      for (let i = 0; i < loaded.length; i += 3) {
        const stem = loaded[i]!.slice(0, -2);
        expect(loaded.slice(i, i + 3)).toEqual([`${stem}-0`, `${stem}-1`, `${stem}-2`]);
      }
      // And each writer's appends in the order it made them.
      for (const w of [0, 1]) {
        const mine = loaded.filter((text) => text.startsWith(`w${w}-`) && text.endsWith('-0'));
        expect(mine).toEqual(Array.from({ length: 40 }, (_, i) => `w${w}-${i}-0`));
      }
      expect(await one.listOwned('alice', 10)).toEqual([
        expect.objectContaining({ agent: 'helper', sessionId: 's', owner: 'alice', messageCount: 300 }),
      ]);
    });

    it('makes an append of an id already there once only (a statement run again after a lost answer)', async () => {
      const table = await openSessionTable(await stores.fresh());
      await table.append('helper', 's', 'alice', [user('one'), assistant('two')], { appendId: 'a-1' });
      await table.append('helper', 's', 'alice', [user('three')], { appendId: 'a-2' });
      await table.append('helper', 's', 'alice', [user('one'), assistant('two')], { appendId: 'a-1' });
      await table.append('helper', 's', 'alice', [user('four')]);
      await table.append('helper', 's', 'alice', [user('four')]);
      expect(await table.load('helper', 's')).toEqual([
        user('one'),
        assistant('two'),
        user('three'),
        user('four'),
        user('four'),
      ]);
      expect(await table.listOwned('alice', 5)).toMatchObject([{ messageCount: 5 }]);
    });

    it('deletes idle sessions oldest first, a batch at a time, by when they were last written', async () => {
      const table = await openSessionTable(await stores.fresh());
      const now = Date.now();
      for (let i = 0; i < 25; i++)
        await table.append(i % 2 ? 'helper' : 'retired', `s${i}`, 'alice', [user('hi'), assistant('hello')], {
          at: now - 40 * DAY + i,
        });
      // Old, but written to yesterday: not idle.
      await table.append('helper', 's3', 'alice', [user('again')], { at: now - DAY });
      await table.append('helper', 'fresh', 'bob', [user('new')], { at: now });
      const cutoff = now - 30 * DAY;
      expect(await table.deleteIdleBefore(cutoff, 10)).toBe(10);
      // The oldest went first: s0..s9 but s3, which is not idle, and s10.
      expect(await table.load('retired', 's0')).toEqual([]);
      expect(await table.load('retired', 's10')).toEqual([]);
      expect(await table.load('retired', 's12')).toHaveLength(2);
      let removed = 10;
      for (let batch = 10; batch === 10; removed += batch) batch = await table.deleteIdleBefore(cutoff, 10);
      expect(removed).toBe(24);
      expect(await table.load('helper', 's3')).toEqual([user('hi'), assistant('hello'), user('again')]);
      expect((await table.listOwned('alice', 50)).map((s) => s.sessionId)).toEqual(['s3']);
      expect((await table.listOwned('bob', 50)).map((s) => s.sessionId)).toEqual(['fresh']);
    });

    it("deletes an owner's sessions of every agent with their messages, a batch at a time, and nobody else's", async () => {
      const table = await openSessionTable(await stores.fresh());
      for (let i = 0; i < 7; i++)
        await table.append(`agent-${i % 3}`, `alice~s${i}`, 'alice', [user('mine'), user('too')]);
      await table.append('agent-0', 'bob~s1', 'bob', [user('theirs')]);
      await table.append('agent-0', 'plain', 'local', [user('the keyless one')]);
      expect((await table.listOwned('alice', 3)).map((s) => `${s.agent}/${s.sessionId}`)).toEqual([
        'agent-0/alice~s0',
        'agent-0/alice~s3',
        'agent-0/alice~s6',
      ]);
      expect((await table.listOwned('alice', 10, 'agent-1')).map((s) => s.sessionId)).toEqual([
        'alice~s1',
        'alice~s4',
      ]);
      expect(await table.deleteOwned('alice', 5)).toEqual({ sessions: 5, messages: 10 });
      expect(await table.deleteOwned('alice', 5)).toEqual({ sessions: 2, messages: 4 });
      expect(await table.deleteOwned('alice', 5)).toEqual({ sessions: 0, messages: 0 });
      expect(await table.listOwned('alice', 10)).toEqual([]);
      expect(await table.load('agent-0', 'bob~s1')).toEqual([user('theirs')]);
      expect(await table.deleteOwned('local', 5)).toEqual({ sessions: 1, messages: 1 });
      expect(await table.load('agent-0', 'bob~s1')).toEqual([user('theirs')]);
    });

    it('keeps the Sessions behaviour: historyLimit from a user turn, persist false, owners told by the id', async () => {
      const store = await stores.fresh();
      const sessions = new Sessions(store);
      const turn = (n: number): Message[] => [
        user(`u${n}`),
        { role: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 'look', input: { n } }] },
        { role: 'tool', toolCallId: `c${n}`, name: 'look', content: `seen ${n}` },
        assistant(`a${n}`),
      ];
      for (let n = 1; n <= 10; n++) {
        await sessions.append('assistant', 'key:abc~a', turn(n));
        await sessions.append('assistant', 'key:abc~a/b', turn(100 + n));
      }
      // The last 6 of 40 are the end of turn 9 and turn 10: the history starts at u10.
      expect(await new Sessions(store, { historyLimit: 6 }).load('assistant', 'key:abc~a')).toEqual(turn(10));
      expect(await new Sessions(store, { historyLimit: 8 }).load('assistant', 'key:abc~a')).toEqual([
        ...turn(9),
        ...turn(10),
      ]);
      expect(await new Sessions(store, { historyLimit: 3 }).load('assistant', 'key:abc~a')).toEqual([]);
      expect(await sessions.load('assistant', 'key:abc~a')).toHaveLength(40);
      const off = new Sessions(store, { persist: false });
      await off.append('assistant', 'plain', turn(1));
      expect(await off.load('assistant', 'key:abc~a')).toEqual([]);
      expect(await sessions.load('assistant', 'plain')).toEqual([]);
      await sessions.append('assistant', 'plain', turn(1));
      await sessions.append('assistant', 'named', turn(2), 'key:given');
      const owners = async (owner: string) => (await sessions.listOwned(owner)).map((s) => s.sessionId);
      expect(await owners('key:abc')).toEqual(['key:abc~a', 'key:abc~a/b']);
      expect(await owners('local')).toEqual(['plain']);
      expect(await owners('key:given')).toEqual(['named']);
    });

    it('moves the sessions the previous release kept as key/value entries, of every agent, once, opened twice at once', async () => {
      const now = Date.now();
      const entries: OldEntry[] = [];
      const kept = new Map<string, Message[]>();
      const keep = (agent: string, session: string, at: number, messages: Message[]) => {
        for (const [n, message] of messages.entries())
          entries.push({
            namespace: `sessions:${agent}`,
            key: storedMessageKey(session, at + n, n),
            value: message,
          });
        kept.set(`${agent}/${session}`, [...(kept.get(`${agent}/${session}`) ?? []), ...messages]);
      };
      // 300 sessions of an agent the config names and of one it no longer does, nested ids too.
      for (let i = 0; i < 150; i++) {
        keep('helper', `key:alice~s${i}`, now - 10 * DAY + i * 10, [user(`q${i}`), assistant(`a${i}`)]);
        keep('retired', `s${i}`, now - 5 * DAY + i * 10, [user(`old ${i}`)]);
      }
      keep('helper', 'key:alice~s1/b', now - DAY, [user('nested')]);
      // Then more to the first, later.
      keep('helper', 'key:alice~s0', now - 2 * DAY, [user('more')]);
      entries.push({
        namespace: 'hubos:sessions:activity',
        key: `000000000000000/helper/key:alice~s0`,
        value: 1,
      });
      entries.push({ namespace: 'hubos:sessions:indexed', key: 'helper', value: now });
      entries.push({ namespace: 'sessionsx', key: 'k', value: 'not a session' });
      const [a, b] = await stores.previous(entries);
      const [one, two] = await Promise.all([openSessionTable(a), openSessionTable(b)]);
      for (const [id, messages] of kept) {
        const [agent, ...rest] = id.split('/');
        expect(await one.load(agent!, rest.join('/'))).toEqual(messages);
      }
      expect(await two.load('helper', 'key:alice~s0')).toEqual([user('q0'), assistant('a0'), user('more')]);
      const alice = await one.listOwned('key:alice', 1000);
      expect(alice).toHaveLength(151);
      expect(alice.find((s) => s.sessionId === 'key:alice~s0')).toMatchObject({
        createdAt: now - 10 * DAY,
        lastActive: now - 2 * DAY,
        messageCount: 3,
      });
      expect(await one.listOwned('local', 1000)).toHaveLength(150);
      // The old entries and the old activity index are gone; what is not theirs stays.
      for (const namespace of [
        'sessions:helper',
        'sessions:retired',
        'hubos:sessions:activity',
        'hubos:sessions:indexed',
      ])
        expect(await a.list(namespace)).toEqual([]);
      expect(await a.list('sessionsx')).toEqual(['k']);
      // Appends go on after the imported messages.
      await one.append('retired', 's1', 'local', [assistant('answer')]);
      expect(await two.load('retired', 's1')).toEqual([user('old 1'), assistant('answer')]);
      // Retention reads what was imported by when it was last written.
      // All but s1 of the retired agent (written just now) and s0 and s1/b of the helper.
      expect(await one.deleteIdleBefore(now - 3 * DAY, 1000)).toBe(298);
      expect(await one.load('helper', 'key:alice~s0')).toHaveLength(3);
    });

    it("searches one owner's end user's sessions with one agent, by any word, and forgets what is deleted", async () => {
      const table = await openSessionTable(await stores.fresh());
      const search = (over: Partial<Parameters<typeof table.search>[0]> = {}) =>
        table.search({
          owner: 'alice',
          userId: 'u1',
          agent: 'helper',
          terms: ['parrot'],
          limit: 10,
          ...over,
        });
      await table.append(
        'helper',
        'old',
        'alice',
        [user('my parrot is called Kiwi'), assistant('Noted: Kiwi.')],
        {
          userId: 'u1',
          at: 1_000,
        },
      );
      await table.append('helper', 'other-user', 'alice', [user('my parrot is called Rio')], {
        userId: 'u2',
      });
      await table.append('helper', 'no-user', 'alice', [user('my parrot is called Max')]);
      await table.append('helper', 'bob', 'bob', [user('my parrot is called Bob')], { userId: 'u1' });
      await table.append('other', 'elsewhere', 'alice', [user('my parrot is called Pip')], { userId: 'u1' });
      // A later append keeps the session's first user.
      await table.append('helper', 'old', 'alice', [user('the parrot likes seeds')], { userId: 'u2' });
      // Tool results and calls are not searched.
      await table.append(
        'helper',
        'tools',
        'alice',
        [{ role: 'tool', toolCallId: 'c', name: 't', content: 'parrot' } as Message],
        {
          userId: 'u1',
        },
      );

      const hits = await search();
      expect(hits.map((hit) => hit.text).sort()).toEqual([
        'my parrot is called Kiwi',
        'the parrot likes seeds',
      ]);
      expect(hits.every((hit) => hit.sessionId === 'old' && hit.role === 'user')).toBe(true);
      expect(hits[0]!.lastActive).toBeGreaterThanOrEqual(1_000);
      // Any word matches.
      const any = await search({ terms: ['kiwi', 'seeds', 'lunch'] });
      expect(any.map((hit) => hit.text).sort()).toEqual([
        'Noted: Kiwi.',
        'my parrot is called Kiwi',
        'the parrot likes seeds',
      ]);
      expect(await search({ userId: '' })).toEqual([
        expect.objectContaining({ text: 'my parrot is called Max' }),
      ]);
      expect(await search({ exceptSession: 'old' })).toEqual([]);
      expect(await search({ owner: 'carol' })).toEqual([]);
      expect(await search({ terms: [] })).toEqual([]);
      expect(await search({ limit: 1 })).toHaveLength(1);
      await expect(search({ limit: -1 })).rejects.toThrow(/limit must be an integer/);

      // What a search reads from a query is only its words: no syntax of either store gets through.
      const hostile = ['parrot" OR "x', 'text : * NEAR(', "parrot' | !kiwi & (", 'AND OR NOT'];
      for (const query of hostile) await expect(search({ terms: searchTerms(query) })).resolves.toBeDefined();
      expect((await search({ terms: searchTerms('PARROT!!') })).length).toBe(2);

      // A huge message and one PostgreSQL's jsonb would refuse are kept, searchable or not.
      await table.append(
        'helper',
        'big',
        'alice',
        [user(`${'word '.repeat(300_000)}needle`), user('nul \u0000 here')],
        {
          userId: 'u1',
        },
      );
      expect(await table.load('helper', 'big')).toHaveLength(2);
      expect(await search({ terms: ['word'] })).toHaveLength(1);

      await table.deleteOwned('alice', 100);
      expect(await search()).toEqual([]);
      expect(await search({ terms: ['word'] })).toEqual([]);
      expect(
        await table.search({ owner: 'bob', userId: 'u1', agent: 'helper', terms: ['parrot'], limit: 5 }),
      ).toHaveLength(1);
    });
  });
}
