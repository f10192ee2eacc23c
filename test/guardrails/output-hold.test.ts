import { describe, expect, it } from 'vitest';
import type { Guardrail, GuardrailVerdictRecord } from '../../core/guardrails/guardrail.ts';
import { OutputHold } from '../../core/guardrails/output-hold.ts';
import { blockTerm, spy } from './test-guardrails.ts';

function hold(guardrails: Guardrail[]) {
  const released: string[] = [];
  const verdicts: GuardrailVerdictRecord[][] = [];
  const output = new OutputHold(
    guardrails,
    { agent: 'a', runId: 'r', signal: new AbortController().signal },
    (text) => released.push(text),
    (said) => verdicts.push(said),
  );
  return { output, released, verdicts };
}

describe('OutputHold', () => {
  it('releases a sentence at a time, each checked with what was released before it', async () => {
    const { guardrail, seen } = spy();
    const { output, released, verdicts } = hold([guardrail]);
    for (const delta of ['It costs 3', '.5 euros. Then', ' more!', ' Ok?\nNext line\nand the ', 'end'])
      await output.push(delta);
    expect(released).toEqual(['It costs 3.5 euros. ', 'Then more! ', 'Ok?\n', 'Next line\n']);
    expect(await output.end()).toBe('It costs 3.5 euros. Then more! Ok?\nNext line\nand the end');
    expect(seen.map((s) => [s.value, s.ctx.before, s.ctx.final])).toEqual([
      ['It costs 3.5 euros. ', '', false],
      ['Then more! ', 'It costs 3.5 euros. ', false],
      ['Ok?\n', 'It costs 3.5 euros. Then more! ', false],
      ['Next line\n', 'It costs 3.5 euros. Then more! Ok?\n', false],
      ['and the end', 'It costs 3.5 euros. Then more! Ok?\nNext line\n', false],
    ]);
    expect(verdicts).toEqual([[{ guardrail: 'spy', stage: 'output', action: 'pass', checks: 5 }]]);
  });

  it('never releases a blocked term split across two deltas, nor the rest of its sentence', async () => {
    const { output, released, verdicts } = hold([blockTerm('password')]);
    await output.push('Fine so far. The pass');
    await output.push('word is hunter2');
    await expect(output.push('. More.')).rejects.toThrow(
      'guardrail "block-password" tripped on the output: it says "password"',
    );
    expect(released).toEqual(['Fine so far. ']);
    expect(released.join('')).not.toMatch(/pass/);
    expect(verdicts).toEqual([
      [
        {
          guardrail: 'block-password',
          stage: 'output',
          action: 'trip',
          reason: 'it says "password"',
          checks: 2,
        },
      ],
    ]);
  });

  it('holds the whole answer when any guardrail checks whole', async () => {
    const whole = spy('whole', 'whole');
    const { output, released } = hold([spy().guardrail, whole.guardrail]);
    await output.push('One. Two. ');
    await output.push('Three.');
    expect(released).toEqual([]);
    expect(await output.end()).toBe('One. Two. Three.');
    expect(released).toEqual(['One. Two. Three.']);
    expect(whole.seen.map((s) => [s.value, s.ctx.final])).toEqual([['One. Two. Three.', true]]);
  });

  it('cuts a long piece without a sentence end at a whitespace that is not between two digits', async () => {
    const { output, released } = hold([spy().guardrail]);
    const words = `${'word '.repeat(398)}12 345`; // 1996 characters, then a number with a space in it
    await output.push(`${words} tail more`);
    // The last whitespace within 2,000 characters that is not the one inside "12 345".
    expect(released).toEqual([`${words} `]);
    expect(await output.end()).toBe(`${words} tail more`);
  });

  it('never cuts a long piece inside a phone number written with a parenthesis or a plus', async () => {
    const { output, released } = hold([spy().guardrail]);
    const words = `${'word '.repeat(397)}+44 (0)20 7946`; // 1999 characters: the number crosses 2,000
    await output.push(`${words} 0958 tail more`);
    // The whitespace before "+44" is the last one a cut may take: each one in the number has a
    // character of a number on both sides.
    expect(released).toEqual([`${'word '.repeat(397)}`]);
    expect(await output.end()).toBe(`${words} 0958 tail more`);
  });

  it('checks nothing and says nothing for an answer without text', async () => {
    const { guardrail, seen } = spy();
    const { output, verdicts } = hold([guardrail]);
    expect(await output.end()).toBe('');
    expect(seen).toHaveLength(0);
    expect(verdicts).toHaveLength(0);
  });
});
