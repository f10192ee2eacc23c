import {
  checkEntriesOptions,
  type EntriesOptions,
  type Store,
  type StoreEntry,
  type StoreValue,
  type StoreWrite,
  selectKeys,
} from './store.ts';

/** A Store in process memory: for tests and throwaway runs. Values are copied in and out. */
export class MemoryStore implements Store {
  readonly #data = new Map<string, Map<string, string>>();

  async get<T extends StoreValue = StoreValue>(namespace: string, key: string): Promise<T | undefined> {
    const raw = this.#data.get(namespace)?.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  async set(namespace: string, key: string, value: StoreValue): Promise<void> {
    this.#space(namespace).set(key, JSON.stringify(value));
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    return this.#data.get(namespace)?.delete(key) ?? false;
  }

  async list(namespace: string, prefix = ''): Promise<string[]> {
    const keys = [...(this.#data.get(namespace)?.keys() ?? [])];
    return keys.filter((key) => key.startsWith(prefix)).sort();
  }

  async namespaces(prefix = ''): Promise<string[]> {
    return [...this.#data]
      .filter(([name, space]) => space.size > 0 && name.startsWith(prefix))
      .map(([name]) => name);
  }

  async entries(namespace: string, prefix = '', options: EntriesOptions = {}): Promise<StoreEntry[]> {
    checkEntriesOptions(options);
    const space = this.#data.get(namespace);
    if (!space) return [];
    const keys = selectKeys(await this.list(namespace, prefix), prefix, options);
    return keys.map((key) => ({ key, value: JSON.parse(space.get(key)!) as StoreValue }));
  }

  async compareAndSet(
    namespace: string,
    key: string,
    expected: StoreValue | undefined,
    next: StoreValue,
  ): Promise<boolean> {
    const space = this.#space(namespace);
    const current = space.get(key);
    if (expected === undefined ? current !== undefined : current !== JSON.stringify(expected)) return false;
    space.set(key, JSON.stringify(next));
    return true;
  }

  async batch(writes: readonly StoreWrite[]): Promise<void> {
    // Every value is turned to JSON before the first write, so a bad one leaves nothing written.
    const texts = writes.map((write) =>
      write.value === undefined ? undefined : JSON.stringify(write.value),
    );
    writes.forEach(({ namespace, key }, i) => {
      const text = texts[i];
      if (text === undefined) this.#data.get(namespace)?.delete(key);
      else this.#space(namespace).set(key, text);
    });
  }

  #space(namespace: string): Map<string, string> {
    let space = this.#data.get(namespace);
    if (!space) {
      space = new Map();
      this.#data.set(namespace, space);
    }
    return space;
  }

  async close(): Promise<void> {}
}
