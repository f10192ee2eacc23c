import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../core/index.ts';
import { openStore } from '../../core/store/open-store.ts';
import { storeContract } from './contract.ts';

storeContract('MemoryStore', () => new MemoryStore());

describe('MemoryStore', () => {
  it('is what openStore gives for driver memory', async () => {
    expect(await openStore({ driver: 'memory' }, '/nonexistent')).toBeInstanceOf(MemoryStore);
  });

  it('keeps each instance to itself', async () => {
    const a = new MemoryStore();
    const b = new MemoryStore();
    await a.set('ns', 'k', 1);
    expect(await b.get('ns', 'k')).toBeUndefined();
  });
});
