import { describe, expect, it } from 'vitest';
import { closestName, didYouMean } from '../../core/closest-name.ts';

describe('closestName', () => {
  it('offers the name a typo meant: a letter wrong, missing, extra or two swapped', () => {
    const known = ['list', 'run', 'resume', 'filesystem_read', 'assistant'];
    expect(closestName('lsit', known)).toBe('list');
    expect(closestName('Run', known)).toBe('run');
    expect(closestName('filesystem_reed', known)).toBe('filesystem_read');
    expect(closestName('asistant', known)).toBe('assistant');
    expect(closestName('assisstant', known)).toBe('assistant');
  });

  it('offers nothing for unrelated or short different names', () => {
    expect(closestName('frobnicate', ['serve', 'run'])).toBeUndefined();
    expect(closestName('ab', ['xy'])).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
  });

  it('didYouMean ends a message the same way everywhere', () => {
    expect(didYouMean('serv', ['serve', 'run'], (name) => `hubos ${name}`)).toBe(
      ' (did you mean "hubos serve"?)',
    );
    expect(didYouMean('wrtier', new Set(['writer']))).toBe(' (did you mean "writer"?)');
    expect(didYouMean('zzz', ['writer'])).toBe('');
  });
});
