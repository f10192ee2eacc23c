import { describe, expect, it } from 'vitest';
import { Sessions } from '../../core/agent/sessions.ts';
import type { Message, Store } from '../../core/index.ts';

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string): Message => ({ role: 'assistant', content });

/** A turn: the user, a tool call and its result, the answer. */
const turn = (n: number): Message[] => [
  user(`u${n}`),
  { role: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 'look', input: { n } }] },
  { role: 'tool', toolCallId: `c${n}`, name: 'look', content: `seen ${n}` },
  assistant(`a${n}`),
];

/** The store, counting the reads a load makes: by kind of call. */
function counting(store: Store) {
  const calls = { get: 0, list: 0, entries: 0 };
  const count = <T>(kind: keyof typeof calls, read: () => T): T => {
    calls[kind]++;
    return read();
  };
  const counted: Store = {
    get: (namespace, key) => count('get', () => store.get(namespace, key)),
    set: (namespace, key, value) => store.set(namespace, key, value),
    delete: (namespace, key) => store.delete(namespace, key),
    list: (namespace, prefix) => count('list', () => store.list(namespace, prefix)),
    compareAndSet: (namespace, key, expected, next) => store.compareAndSet(namespace, key, expected, next),
    close: () => store.close(),
  };
  if (store.entries) {
    const entries = store.entries.bind(store);
    counted.entries = (namespace, prefix, options) =>
      count('entries', () => entries(namespace, prefix, options));
  }
  return { store: counted, calls };
}

/** What Sessions must do on every store: run against one implementation. `open` gives a fresh, empty store. */
export function sessionsContract(name: string, open: () => Store | Promise<Store>): void {
  describe(`${name}: sessions`, () => {
    const withStore = (test: (store: Store) => Promise<void>) => async () => {
      const store = await open();
      try {
        await test(store);
      } finally {
        await store.close();
      }
    };

    it(
      'loads a session in one read, without the messages of a session nested in it',
      withStore(async (raw) => {
        const { store, calls } = counting(raw);
        const sessions = new Sessions(store);
        const own: Message[] = [];
        for (let n = 1; n <= 25; n++) {
          own.push(...turn(n));
          await sessions.append('assistant', 'a', turn(n));
          // Session "a/b" is written between: its keys start with "a/" too, and sort after a's.
          await sessions.append('assistant', 'a/b', [user(`nested ${n}`)]);
        }
        await sessions.append('assistant', 'ab', [user('beside')]);
        await sessions.append('other', 'a', [user('another agent')]);
        calls.entries = calls.get = calls.list = 0;
        expect(await sessions.load('assistant', 'a')).toEqual(own);
        expect(calls).toEqual({ get: 0, list: 0, entries: 1 });
        expect(await sessions.load('assistant', 'a/b')).toEqual(
          Array.from({ length: 25 }, (_, i) => user(`nested ${i + 1}`)),
        );
        expect(await sessions.load('assistant', 'missing')).toEqual([]);
      }),
    );

    it(
      'reads only the last historyLimit messages, counted after the nested sessions, from a user turn',
      withStore(async (raw) => {
        const { store, calls } = counting(raw);
        const writer = new Sessions(store);
        for (let n = 1; n <= 10; n++) {
          await writer.append('assistant', 'a', turn(n));
          await writer.append('assistant', 'a/b', turn(100 + n));
        }
        // The last 6 of a's 40 are the end of turn 9 and turn 10: the history starts at u10.
        const limited = new Sessions(store, { historyLimit: 6 });
        calls.entries = calls.get = calls.list = 0;
        expect(await limited.load('assistant', 'a')).toEqual(turn(10));
        expect(calls).toEqual({ get: 0, list: 0, entries: 1 });
        expect(await new Sessions(store, { historyLimit: 8 }).load('assistant', 'a')).toEqual([
          ...turn(9),
          ...turn(10),
        ]);
        // The last 3 hold no user turn: nothing usable is left.
        expect(await new Sessions(store, { historyLimit: 3 }).load('assistant', 'a')).toEqual([]);
        expect(await new Sessions(store, { historyLimit: 1000 }).load('assistant', 'a')).toHaveLength(40);
      }),
    );

    it(
      'loads the same from a store without entries (list, then get)',
      withStore(async (raw) => {
        for (let n = 1; n <= 5; n++) {
          await new Sessions(raw).append('assistant', 'a', turn(n));
          await new Sessions(raw).append('assistant', 'a/b', turn(100 + n));
        }
        const { entries: _, ...rest } = counting(raw).store;
        const { store: bare, calls } = counting(rest as Store);
        for (const historyLimit of [undefined, 6, 8]) {
          const config = historyLimit === undefined ? {} : { historyLimit };
          expect(await new Sessions(bare, config).load('assistant', 'a')).toEqual(
            await new Sessions(raw, config).load('assistant', 'a'),
          );
        }
        expect(calls.entries).toBe(0);
        expect(calls.list).toBe(3);
      }),
    );
  });
}
