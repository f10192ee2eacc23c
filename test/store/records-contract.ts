import { describe, expect, it } from 'vitest';
import { HubosError, type RecordCursor, recordTable, type Store } from '../../core/index.ts';

interface Note {
  owner?: string;
  text: string;
  state: 'draft' | 'sent' | 'kept';
  at: number;
}

const notesOf = (store: Store, name = 'notes') =>
  recordTable<Note>(store, name, { owner: (n) => n.owner, time: (n) => n.at, tag: (n) => n.state });

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'ok';
  } catch (error) {
    return HubosError.is(error) ? `${error.code} ${error.message}` : String(error);
  }
};

export interface RecordsContractStores {
  /** A store of this kind, fresh. */
  fresh(): Promise<Store>;
  /** Another handle on the same database as `store` (another instance). */
  another(store: Store): Promise<Store>;
}

/** What a typed record table does, whichever database holds it. */
export function recordsContract(kind: string, stores: RecordsContractStores): void {
  describe(`${kind} record tables`, () => {
    it('keeps a typed record under its key, and tables of two names apart', async () => {
      const store = await stores.fresh();
      const notes = notesOf(store);
      const other = notesOf(store, 'other-notes');
      const note: Note = { owner: 'ada', text: 'hello \u0000 "there"', state: 'draft', at: 1_000 };
      await notes.put('n/1', note);
      expect(await notes.get('n/1')).toEqual(note);
      expect(await other.get('n/1')).toBeUndefined();
      await notes.put('n/1', { ...note, text: 'again' });
      expect((await notes.get('n/1'))?.text).toBe('again');
      expect(await notes.delete('n/1')).toBe(true);
      expect(await notes.delete('n/1')).toBe(false);
      expect(await notes.get('n/1')).toBeUndefined();
    });

    it('writes on compare-and-set only what still holds the expected value, and exactly one of two instances', async () => {
      const store = await stores.fresh();
      const here = notesOf(store);
      const there = notesOf(await stores.another(store));
      const first: Note = { owner: 'ada', text: 'v1', state: 'draft', at: 1 };
      expect(await here.compareAndSet('k', undefined, first)).toBe(true);
      expect(await there.compareAndSet('k', undefined, first)).toBe(false);
      for (let trial = 0; trial < 10; trial++) {
        const current = (await here.get('k')) as Note;
        const wins = await Promise.all([
          here.compareAndSet('k', current, { ...current, text: `here ${trial}`, at: trial + 2 }),
          there.compareAndSet('k', current, { ...current, text: `there ${trial}`, at: trial + 2 }),
        ]);
        expect(wins.filter(Boolean), `trial ${trial}`).toHaveLength(1);
      }
      const stale: Note = { owner: 'ada', text: 'v1', state: 'draft', at: 1 };
      expect(await here.compareAndSet('k', stale, { ...stale, text: 'late' })).toBe(false);
      // The index columns follow a compare-and-set's write.
      const current = (await here.get('k')) as Note;
      expect(await here.compareAndSet('k', current, { ...current, owner: 'bob', state: 'sent' })).toBe(true);
      expect((await here.list({ owner: 'bob', tag: 'sent' })).entries.map((e) => e.key)).toEqual(['k']);
      expect(await here.count({ owner: 'ada' })).toBe(0);
    });

    it('lists by owner, tag, time and key prefix, newest or oldest first, a page at a time', async () => {
      const store = await stores.fresh();
      const notes = notesOf(store);
      const states = ['draft', 'sent', 'kept'] as const;
      // Times repeat: pages break ties by key, so none is lost or seen twice.
      for (let i = 0; i < 30; i++)
        await notes.put(`${i % 2 ? 'a' : 'b'}/n${String(i).padStart(2, '0')}`, {
          owner: i % 3 === 0 ? 'bob' : 'ada',
          text: `note ${i}`,
          state: states[i % 3] as Note['state'],
          at: 1_000 + Math.floor(i / 4),
        });
      await notes.put('nobody', { text: 'no owner', state: 'draft', at: 5 });
      const all = async (query: Parameters<typeof notes.list>[0]) => {
        const keys: string[] = [];
        let after: RecordCursor | undefined;
        for (let pages = 0; pages < 100; pages++) {
          const page = await notes.list({ ...query, after });
          keys.push(...page.entries.map((e) => e.key));
          if (!page.next) break;
          after = page.next;
        }
        return keys;
      };
      const newest = await all({ limit: 4 });
      expect(newest).toHaveLength(31);
      expect(new Set(newest).size).toBe(31);
      expect(newest.at(-1)).toBe('nobody');
      expect(await all({ limit: 7, order: 'oldest' })).toEqual([...newest].reverse());
      const ada = await all({ owner: 'ada', limit: 3 });
      expect(ada).toHaveLength(20);
      const page = await notes.list({ owner: 'ada', limit: 1 });
      expect(page.entries[0]).toMatchObject({ owner: 'ada', time: 1_007, tag: expect.any(String) });
      expect(await all({ tag: 'sent', limit: 2 })).toHaveLength(10);
      expect(await all({ tag: 'sent', owner: 'ada', limit: 3 })).toHaveLength(10);
      expect(await all({ tag: ['draft', 'kept'], limit: 5 })).toHaveLength(21);
      expect(await all({ tag: 'draft', owner: 'ada', limit: 5 })).toHaveLength(0);
      expect(await all({ since: 1_005, before: 1_007, limit: 3 })).toHaveLength(8);
      expect((await all({ prefix: 'a/', limit: 4 })).every((key) => key.startsWith('a/'))).toBe(true);
      expect(await all({ prefix: 'a/', limit: 4 })).toHaveLength(15);
      expect(await notes.count()).toBe(31);
      // A prefix beyond the BMP: one character to the database, two UTF-16 units to JavaScript.
      await notes.put('😀/1', { text: '', state: 'kept', at: 1 });
      expect(await all({ prefix: '😀/', limit: 4 })).toEqual(['😀/1']);
      await notes.delete('😀/1');
      expect(await notes.count({ owner: 'bob' })).toBe(10);
      expect(await notes.count({ tag: ['draft'], before: 1_000 })).toBe(1);
    });

    it('deletes what a filter selects, oldest first, a batch at a time, saying which keys went', async () => {
      const store = await stores.fresh();
      const notes = notesOf(store);
      for (let i = 0; i < 25; i++)
        await notes.put(`n${i}`, { owner: 'ada', text: '', state: i % 2 ? 'sent' : 'draft', at: i });
      await notes.put('bob', { owner: 'bob', text: '', state: 'sent', at: 1 });
      const batches: string[][] = [];
      for (let keys = ['']; keys.length > 0; ) {
        keys = await notes.deleteWhere({ tag: ['sent', 'kept'], before: 20, limit: 4 });
        batches.push(keys);
      }
      expect(batches.map((keys) => keys.length)).toEqual([4, 4, 3, 0]);
      // The oldest four first (in no particular order among themselves).
      expect(batches[0]?.sort()).toEqual(['bob', 'n1', 'n3', 'n5']);
      expect(await notes.count({ tag: 'sent' })).toBe(2); // n21, n23
      expect(await notes.count({ tag: 'draft' })).toBe(13);
      expect((await notes.deleteWhere({ owner: 'ada', limit: 100 })).length).toBe(15);
      expect(await notes.count()).toBe(0);
      await notes.put('x', { text: '', state: 'kept', at: 0 });
      expect(await notes.deleteKeys(['x', 'y'])).toBe(1);
    });

    it('inserts many only where the key is free, however often it is asked', async () => {
      const store = await stores.fresh();
      const notes = notesOf(store);
      await notes.put('n1', { text: 'newer', state: 'kept', at: 9 });
      const records = [1, 2, 3].map((i) => ({
        key: `n${i}`,
        value: { text: 'old', state: 'draft', at: i } as Note,
      }));
      const [a, b] = await Promise.all([
        notes.insertMany(records),
        notesOf(await stores.another(store)).insertMany(records),
      ]);
      expect(a + b).toBe(2);
      expect(await notes.insertMany(records)).toBe(0);
      expect((await notes.get('n1'))?.text).toBe('newer');
    });

    it('refuses a bad name, key, index value or query with RECORD_INVALID saying which', async () => {
      const store = await stores.fresh();
      expect(() => notesOf(store, '../x')).toThrow(/RECORD_INVALID|a name is 1 to 100/);
      const notes = notesOf(store);
      const note: Note = { text: '', state: 'draft', at: 0 };
      expect(await codeOf(notes.put('', note))).toMatch(/^RECORD_INVALID .*key "" is not 1 to 512 bytes/);
      expect(await codeOf(notes.get('a\u0000b'))).toMatch(/^RECORD_INVALID .*key/);
      expect(await codeOf(notes.put('x'.repeat(513), note))).toMatch(/^RECORD_INVALID/);
      // Counted in bytes: 200 characters of 3 bytes each keep an index entry within PostgreSQL's limit.
      expect(await codeOf(notes.put('漢'.repeat(200), note))).toMatch(/^RECORD_INVALID/);
      // A lone surrogate would be stored as U+FFFD: two keys would be one row.
      expect(await codeOf(notes.put('a\uD800', note))).toMatch(/^RECORD_INVALID .*lone surrogate/);
      expect(await codeOf(notes.put('k', { ...note, at: Number.NaN }))).toMatch(
        /^RECORD_INVALID .*time of "k" NaN/,
      );
      expect(await codeOf(notes.put('k', { ...note, owner: '' }))).toMatch(/^RECORD_INVALID .*owner of "k"/);
      expect(await codeOf(notes.list({ limit: 0 }))).toMatch(/^RECORD_INVALID .*limit 0/);
      expect(await codeOf(notes.list({ limit: 1001 }))).toMatch(/^RECORD_INVALID .*limit 1001/);
      expect(await codeOf(notes.list({ order: 'sideways' as 'newest' }))).toMatch(/^RECORD_INVALID .*order/);
      expect(await codeOf(notes.list({ after: { time: 1, key: '' } }))).toMatch(
        /^RECORD_INVALID .*after.key/,
      );
      expect(await codeOf(notes.deleteWhere({ tag: [], limit: 5 }))).toMatch(/^RECORD_INVALID .*tag/);
      expect(await codeOf(notes.deleteWhere({ limit: 10_001 }))).toMatch(/^RECORD_INVALID .*limit/);
      expect(await codeOf(notes.put('k', undefined as unknown as Note))).toMatch(
        /^RECORD_INVALID .*not JSON/,
      );
      expect(await notes.count()).toBe(0);
      expect(new HubosError('RECORD_INVALID', 'x').status).toBe(400);
    });
  });
}
