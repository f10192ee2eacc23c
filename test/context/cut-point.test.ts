import { describe, expect, it } from 'vitest';
import { cutPoint } from '../../core/context/cut-point.ts';
import type { Message } from '../../core/index.ts';

const user = (content: string): Message => ({ role: 'user', content });
const said = (content: string): Message => ({ role: 'assistant', content });
const calls = (id: string): Message => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, name: 'look', input: {} }],
});
const result = (id: string): Message => ({
  role: 'tool',
  toolCallId: id,
  name: 'look',
  content: `result ${id}`,
});

describe('cutPoint', () => {
  it('keeps the last keepTurns turns whole, cutting at the start of a turn', () => {
    const messages = [
      user('1'),
      said('a'),
      user('2'),
      calls('c1'),
      result('c1'),
      said('b'),
      user('3'),
      said('c'),
    ];
    expect(cutPoint(messages, 0, 1)).toBe(6);
    expect(cutPoint(messages, 0, 2)).toBe(2);
    // The older turns summarized already: the last turn's own steps, but never its last one.
    expect(cutPoint(messages, 6, 1)).toBe(7);
    expect(cutPoint(messages, 7, 1)).toBeUndefined();
  });

  it('cuts one long turn at a step, never between a tool call and its result', () => {
    const messages = [
      user('task'),
      calls('c1'),
      result('c1'),
      calls('c2'),
      result('c2'),
      calls('c3'),
      result('c3'),
    ];
    const cut = cutPoint(messages, 0, 1)!;
    expect(cut).toBe(5);
    expect(messages[cut]!.role).toBe('assistant');
    for (let keep = 1; keep <= 3; keep++) {
      const at = cutPoint(messages, 0, keep);
      if (at !== undefined) expect(messages[at]!.role).not.toBe('tool');
    }
  });

  it('finds nothing to cut in a conversation shorter than the turns kept', () => {
    expect(cutPoint([user('1'), said('a')], 0, 4)).toBeUndefined();
  });
});
