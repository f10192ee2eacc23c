import { describe, expect, it } from 'vitest';
import { type EntriesOptions, readEntries, type Store, type StoreValue } from '../../core/index.ts';

/** What every Store must do, run against one implementation. `open` gives a fresh, empty store. */
export function storeContract(name: string, open: () => Store | Promise<Store>): void {
  describe(`${name}: the Store contract`, () => {
    const withStore = (test: (store: Store) => Promise<void>) => async () => {
      const store = await open();
      try {
        await test(store);
      } finally {
        await store.close();
      }
    };

    it(
      'gets what was set, undefined for what was not',
      withStore(async (store) => {
        expect(await store.get('ns', 'missing')).toBeUndefined();
        await store.set('ns', 'k', { a: 1 });
        expect(await store.get('ns', 'k')).toEqual({ a: 1 });
      }),
    );

    it(
      'round-trips JSON values exactly',
      withStore(async (store) => {
        const values: Record<string, StoreValue> = {
          null: null,
          true: true,
          false: false,
          zero: 0,
          negative: -12.5,
          big: 2 ** 53 - 1,
          empty: '',
          text: 'héllo wörld ✓ 🚀 "quoted" \\ back\nslash',
          array: [1, 'two', null, [3], { four: 4 }],
          object: { nested: { deep: [true, { x: 'y' }] }, empty: {}, list: [] },
        };
        for (const [key, value] of Object.entries(values)) await store.set('json', key, value);
        for (const [key, value] of Object.entries(values))
          expect(await store.get('json', key)).toEqual(value);
      }),
    );

    it(
      'copies values in and out',
      withStore(async (store) => {
        const value = { list: [1, 2] };
        await store.set('ns', 'k', value);
        value.list.push(3);
        const read = (await store.get<{ list: number[] }>('ns', 'k'))!;
        expect(read).toEqual({ list: [1, 2] });
        read.list.push(4);
        expect(await store.get('ns', 'k')).toEqual({ list: [1, 2] });
      }),
    );

    it(
      'overwrites, and deletes saying whether there was something',
      withStore(async (store) => {
        await store.set('ns', 'k', 'one');
        await store.set('ns', 'k', 'two');
        expect(await store.get('ns', 'k')).toBe('two');
        expect(await store.delete('ns', 'k')).toBe(true);
        expect(await store.delete('ns', 'k')).toBe(false);
        expect(await store.delete('other', 'k')).toBe(false);
        expect(await store.get('ns', 'k')).toBeUndefined();
        expect(await store.list('ns')).toEqual([]);
      }),
    );

    it(
      'lists the namespaces holding keys, those with a prefix only, and not one emptied',
      withStore(async (store) => {
        for (const namespace of [
          'sessions:a',
          'sessions:b/c',
          'sessions',
          'sessionsx',
          'other',
          'sessions:gone',
        ])
          await store.set(namespace, 'k', 1);
        await store.delete('sessions:gone', 'k');
        expect((await store.namespaces!('sessions:')).sort()).toEqual(['sessions:a', 'sessions:b/c']);
        expect((await store.namespaces!()).sort()).toEqual([
          'other',
          'sessions',
          'sessions:a',
          'sessions:b/c',
          'sessionsx',
        ]);
        expect(await store.namespaces!('none:')).toEqual([]);
      }),
    );

    it(
      'lists keys in key order, whatever the order they were set in',
      withStore(async (store) => {
        for (const key of ['b/2', 'a', 'b/10', 'B', 'b/1', 'c', 'b/']) await store.set('ns', key, key);
        expect(await store.list('ns')).toEqual(['B', 'a', 'b/', 'b/1', 'b/10', 'b/2', 'c']);
        expect(await store.list('ns', '')).toEqual(['B', 'a', 'b/', 'b/1', 'b/10', 'b/2', 'c']);
        expect(await store.list('ns', 'b/')).toEqual(['b/', 'b/1', 'b/10', 'b/2']);
        expect(await store.list('ns', 'b/1')).toEqual(['b/1', 'b/10']);
        expect(await store.list('ns', 'zzz')).toEqual([]);
        expect(await store.list('empty')).toEqual([]);
      }),
    );

    it(
      'matches prefixes literally (no wildcard characters)',
      withStore(async (store) => {
        for (const key of ['100%', '100x', 'a_b', 'axb', "it's", 'x*y']) await store.set('ns', key, 1);
        expect(await store.list('ns', '100%')).toEqual(['100%']);
        expect(await store.list('ns', 'a_')).toEqual(['a_b']);
        expect(await store.list('ns', "it'")).toEqual(["it's"]);
        expect(await store.list('ns', 'x*')).toEqual(['x*y']);
      }),
    );

    it(
      'keeps namespaces apart',
      withStore(async (store) => {
        await store.set('one', 'k', 1);
        await store.set('two', 'k', 2);
        await store.set('one', 'only-one', true);
        expect(await store.get('one', 'k')).toBe(1);
        expect(await store.get('two', 'k')).toBe(2);
        expect(await store.list('one')).toEqual(['k', 'only-one']);
        expect(await store.list('two')).toEqual(['k']);
        await store.delete('one', 'k');
        expect(await store.get('two', 'k')).toBe(2);
      }),
    );

    it(
      'compares and sets: only when absent, or only when it holds the value read',
      withStore(async (store) => {
        expect(await store.compareAndSet('ns', 'lease', undefined, { holder: 'a', n: 1 })).toBe(true);
        expect(await store.compareAndSet('ns', 'lease', undefined, { holder: 'b', n: 1 })).toBe(false);
        const held = await store.get('ns', 'lease');
        expect(held).toEqual({ holder: 'a', n: 1 });
        expect(await store.compareAndSet('ns', 'lease', { holder: 'x', n: 1 }, { holder: 'b', n: 2 })).toBe(
          false,
        );
        expect(await store.compareAndSet('ns', 'lease', held, { holder: 'b', n: 2 })).toBe(true);
        expect(await store.compareAndSet('ns', 'lease', held, { holder: 'c', n: 3 })).toBe(false);
        expect(await store.get('ns', 'lease')).toEqual({ holder: 'b', n: 2 });
        expect(await store.compareAndSet('other', 'lease', undefined, 1)).toBe(true);
      }),
    );

    it(
      'lets exactly one of many concurrent claims win',
      withStore(async (store) => {
        await store.set('ns', 'count', 0);
        const claims = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.compareAndSet('ns', 'count', 0, i + 1)),
        );
        expect(claims.filter(Boolean)).toHaveLength(1);
      }),
    );

    it(
      'commits a batch in order: sets, deletes, a key written twice ends as its last write',
      withStore(async (store) => {
        expect(store.batch).toBeTypeOf('function');
        await store.set('active', 'run-1', { status: 'running' });
        await store.set('ns', 'twice', 'old');
        await store.batch!([
          { namespace: 'ended', key: 'run-1', value: { status: 'completed' } },
          { namespace: 'active', key: 'run-1', value: undefined },
          { namespace: 'ns', key: 'twice', value: undefined },
          { namespace: 'ns', key: 'twice', value: 'new' },
          { namespace: 'ns', key: 'gone', value: 'soon' },
          { namespace: 'ns', key: 'gone', value: undefined },
          { namespace: 'ns', key: 'absent', value: undefined },
        ]);
        expect(await store.get('ended', 'run-1')).toEqual({ status: 'completed' });
        expect(await store.get('active', 'run-1')).toBeUndefined();
        expect(await store.list('active')).toEqual([]);
        expect(await store.get('ns', 'twice')).toBe('new');
        expect(await store.get('ns', 'gone')).toBeUndefined();
        expect(await store.list('ns')).toEqual(['twice']);
        await store.batch!([]);
      }),
    );

    it(
      'writes none of a batch when one value cannot be stored',
      withStore(async (store) => {
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await store.set('ns', 'kept', 'before');
        await expect(
          store.batch!([
            { namespace: 'ns', key: 'kept', value: undefined },
            { namespace: 'ns', key: 'new', value: 'x' },
            { namespace: 'ns', key: 'bad', value: cyclic as never },
          ]),
        ).rejects.toThrow(/circular/i);
        expect(await store.get('ns', 'kept')).toBe('before');
        expect(await store.list('ns')).toEqual(['kept']);
      }),
    );

    it(
      "reads a prefix's entries in key order, in one call, prefixes taken literally",
      withStore(async (store) => {
        expect(store.entries).toBeTypeOf('function');
        const keys = [
          'b/2',
          'a',
          'b/10',
          'B',
          'b/1',
          'c',
          'b/',
          '100%',
          '100x',
          'a_b',
          'axb',
          'é',
          '🚀',
          'z',
        ];
        for (const key of keys) await store.set('ns', key, { key });
        await store.set('other', 'b/1', 'elsewhere');
        const all = await store.entries!('ns');
        // The same order as list: byte order, whatever the database's collation.
        expect(all.map((entry) => entry.key)).toEqual(await store.list('ns'));
        expect(all.every((entry) => (entry.value as { key: string }).key === entry.key)).toBe(true);
        expect(await store.entries!('ns', 'b/')).toEqual([
          { key: 'b/', value: { key: 'b/' } },
          { key: 'b/1', value: { key: 'b/1' } },
          { key: 'b/10', value: { key: 'b/10' } },
          { key: 'b/2', value: { key: 'b/2' } },
        ]);
        expect((await store.entries!('ns', '100%')).map((entry) => entry.key)).toEqual(['100%']);
        expect((await store.entries!('ns', 'a_')).map((entry) => entry.key)).toEqual(['a_b']);
        expect(await store.entries!('ns', 'zzz')).toEqual([]);
        expect(await store.entries!('empty')).toEqual([]);
      }),
    );

    it(
      'leaves out the keys past a delimiter, and limits to the first or the last entries',
      withStore(async (store) => {
        // A session "a" beside a session "a/b": the nested one's keys sort between and after.
        const own = ['a/001', 'a/002', 'a/003', 'a/z'];
        for (const key of [...own, 'a/0/1', 'a/b/001', 'a/b/002', 'ab/1', 'a'])
          await store.set('ns', key, key);
        const keysOf = async (prefix: string, options: EntriesOptions) =>
          (await store.entries!('ns', prefix, options)).map((entry) => entry.key);
        expect(await keysOf('a/', { delimiter: '/' })).toEqual(own);
        expect(await keysOf('a/', {})).toEqual([
          'a/0/1',
          'a/001',
          'a/002',
          'a/003',
          'a/b/001',
          'a/b/002',
          'a/z',
        ]);
        expect(await keysOf('a/', { delimiter: '/', limit: 2 })).toEqual(['a/001', 'a/002']);
        // The last ones, still in key order, counting only the keys the delimiter keeps.
        expect(await keysOf('a/', { delimiter: '/', limit: 2, fromEnd: true })).toEqual(['a/003', 'a/z']);
        expect(await keysOf('a/', { delimiter: '/', limit: 10, fromEnd: true })).toEqual(own);
        expect(await keysOf('a/', { delimiter: '/', limit: 0 })).toEqual([]);
        expect(await keysOf('a/', { delimiter: '/', fromEnd: true })).toEqual(own);
        expect(await keysOf('a/b/', { delimiter: '/' })).toEqual(['a/b/001', 'a/b/002']);
        expect(await keysOf('', { delimiter: '/' })).toEqual(['a']);
        // A delimiter of several characters is matched whole.
        expect(await keysOf('a/', { delimiter: '/0' })).toEqual(['a/0/1', 'a/001', 'a/002', 'a/003', 'a/z']);
      }),
    );

    it(
      'refuses an entries limit that is not a count',
      withStore(async (store) => {
        for (const limit of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
          await expect(store.entries!('ns', '', { limit })).rejects.toThrow(RangeError);
      }),
    );

    it(
      "reads the same entries through readEntries without the store's own entries (list, then get)",
      withStore(async (store) => {
        for (const key of ['s/1', 's/2', 's/3', 's/x/1', 's/x/2', 't/1']) await store.set('ns', key, { key });
        // Only what a store must have: no entries, no batch.
        const bare: Store = {
          get: (namespace, key) => store.get(namespace, key),
          set: (namespace, key, value) => store.set(namespace, key, value),
          delete: (namespace, key) => store.delete(namespace, key),
          list: (namespace, prefix) => store.list(namespace, prefix),
          compareAndSet: (namespace, key, expected, next) =>
            store.compareAndSet(namespace, key, expected, next),
          close: async () => {},
        };
        const cases: [string, EntriesOptions][] = [
          ['', {}],
          ['s/', {}],
          ['s/', { delimiter: '/' }],
          ['s/', { delimiter: '/', limit: 2 }],
          ['s/', { delimiter: '/', limit: 2, fromEnd: true }],
          ['s/', { limit: 3, fromEnd: true }],
          ['u/', {}],
        ];
        for (const [prefix, options] of cases)
          expect(await readEntries(bare, 'ns', prefix, options)).toEqual(
            await readEntries(store, 'ns', prefix, options),
          );
        await expect(readEntries(bare, 'ns', '', { limit: -1 })).rejects.toThrow(RangeError);
      }),
    );

    it(
      'closes more than once without error',
      withStore(async (store) => {
        await store.close();
        await store.close();
      }),
    );
  });
}
