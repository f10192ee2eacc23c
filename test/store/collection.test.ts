import { describe, expect, it } from 'vitest';
import { collection, MemoryStore, SqliteStore, type Store, writeAll } from '../../core/index.ts';

// A plugin's own interfaces: no index signature, an optional field, a nested interface, a field
// typed unknown, a union.
interface Author {
  name: string;
  email?: string;
}
interface Note {
  owner: string;
  text: string;
  author: Author;
  tags: readonly string[];
  extra: unknown;
  status: 'draft' | 'published';
}

const note = (text: string, status: Note['status'] = 'draft'): Note => ({
  owner: 'ada',
  text,
  author: { name: 'Ada' },
  tags: ['a', 'b'],
  extra: { any: [1, 'json'] },
  status,
});

describe.each([
  ['MemoryStore', () => new MemoryStore()],
  ['SqliteStore', () => new SqliteStore(':memory:')],
])('collection<T> on a %s', (_, open: () => Store) => {
  it('gets, sets, lists and deletes values of an interface, in its own namespace', async () => {
    const store = open();
    try {
      const notes = collection<Note>(store, 'notes');
      expect(notes.namespace).toBe('notes');
      expect(await notes.get('n1')).toBeUndefined();
      await notes.set('n1', note('hello'));
      await notes.set('n2', note('world', 'published'));
      const read = await notes.get('n1');
      expect(read).toEqual(note('hello'));
      expect(read?.author.name).toBe('Ada');
      expect(await notes.keys()).toEqual(['n1', 'n2']);
      expect(await notes.keys('n2')).toEqual(['n2']);
      // The namespace is the store's: another view of it, or the raw store, sees the same.
      expect(await store.list('notes')).toEqual(['n1', 'n2']);
      expect(await store.get('notes', 'n2')).toEqual(note('world', 'published'));
      expect(await notes.delete('n1')).toBe(true);
      expect(await notes.delete('n1')).toBe(false);
      expect(await notes.keys()).toEqual(['n2']);
    } finally {
      await store.close();
    }
  });

  it('reads entries by prefix, the last ones, past no delimiter', async () => {
    const store = open();
    try {
      const notes = collection<Note>(store, 'notes');
      for (const key of ['s/1', 's/2', 's/3', 's/sub/1']) await notes.set(key, note(key));
      const last = await notes.entries('s/', { delimiter: '/', limit: 2, fromEnd: true });
      expect(last.map((entry) => [entry.key, entry.value.text])).toEqual([
        ['s/2', 's/2'],
        ['s/3', 's/3'],
      ]);
    } finally {
      await store.close();
    }
  });

  it('compares and sets typed values, and makes writes for writeAll', async () => {
    const store = open();
    try {
      const notes = collection<Note>(store, 'notes');
      expect(await notes.compareAndSet('n', undefined, note('first'))).toBe(true);
      expect(await notes.compareAndSet('n', undefined, note('again'))).toBe(false);
      const held = await notes.get('n');
      expect(await notes.compareAndSet('n', held, note('second', 'published'))).toBe(true);
      expect(await notes.compareAndSet('n', held, note('third'))).toBe(false);
      expect((await notes.get('n'))?.text).toBe('second');
      expect(notes.write('n', undefined)).toEqual({ namespace: 'notes', key: 'n', value: undefined });
      await writeAll(store, [notes.write('m', note('moved')), notes.write('n', undefined)]);
      expect(await notes.keys()).toEqual(['m']);
    } finally {
      await store.close();
    }
  });
});

describe('collection<T> types', () => {
  it('takes JSON-shaped types, interfaces included, and refuses what JSON would not bring back', () => {
    const store = new MemoryStore();
    collection<Note>(store, 'ok');
    collection<string>(store, 'ok');
    collection<number[]>(store, 'ok');
    collection<Record<string, unknown>>(store, 'ok');
    const untyped = collection(store, 'ok');
    void untyped.set('k', { any: ['json', 1, null] });
    // @ts-expect-error a Date comes back as a string
    collection<{ at: Date }>(store, 'no');
    // @ts-expect-error a function is not stored
    collection<{ run: () => void }>(store, 'no');
    // @ts-expect-error a bigint is not JSON
    collection<{ n: bigint }>(store, 'no');
    // @ts-expect-error a Map comes back as {}
    collection<{ byId: Map<string, Note> }>(store, 'no');
    const notes = collection<Note>(store, 'ok');
    // @ts-expect-error a value of another type
    void notes.set('k', { owner: 'ada' });
    expect(notes.namespace).toBe('ok');
  });
});
