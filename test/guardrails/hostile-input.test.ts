import { describe, expect, it } from 'vitest';
import { guardrails } from '../../core/index.ts';
import { context } from './context.ts';

/**
 * What an attacker sends to make a check slow (catastrophic backtracking) or crash it (deep
 * nesting): every built-in that reads text must get through these. No timings are asserted: the
 * test timeout is the bound, and a quadratic scan of these inputs would run for minutes.
 */
const HUNDRED_KB = 100_000;
const inputs: Record<string, string> = {
  'digits and spaces': Array.from({ length: HUNDRED_KB / 2 }, (_, i) => `${i % 10} `).join(''),
  'groups of four digits': '4111 '.repeat(HUNDRED_KB / 5),
  'one long number': '9'.repeat(HUNDRED_KB),
  'plus signs and digits': '+1 '.repeat(HUNDRED_KB / 3),
  'open parentheses and digits': '(1'.repeat(HUNDRED_KB / 2),
  'at signs': '@'.repeat(HUNDRED_KB),
  'addresses glued together': 'a@b.'.repeat(HUNDRED_KB / 4),
  'local parts without an at sign': 'a.'.repeat(HUNDRED_KB / 2),
  'IBAN heads': 'DE89 '.repeat(HUNDRED_KB / 5),
  'JWT heads': 'eyJ-'.repeat(HUNDRED_KB / 4),
  'key prefixes': 'sk-'.repeat(HUNDRED_KB / 3),
  'repeated ignore': 'ignore all '.repeat(HUNDRED_KB / 11),
  'you are now a': 'you are now a '.repeat(HUNDRED_KB / 14),
  'hash lines': '#'.repeat(HUNDRED_KB),
  spaces: ' '.repeat(HUNDRED_KB),
  'role token starts': '<|'.repeat(HUNDRED_KB / 2),
};

const textGuards = [
  guardrails.pii(),
  guardrails.injection(),
  guardrails.blockedTerms({ terms: ['falcon', 'project x'], action: 'redact' }),
  guardrails.maxLength({ max: 1_000_000 }),
];

describe('built-ins against hostile input', () => {
  it.each(Object.entries(inputs))('get through 100 KB of %s', async (_, text) => {
    for (const guard of textGuards) {
      const verdict = await guard.check(text, context('tool-output'));
      expect([undefined, 'pass', 'rewrite', 'trip']).toContain(verdict?.action);
    }
  });

  it('redacts inside JSON nested 1000 deep', async () => {
    let value: unknown = 'reach me at deep@example.com';
    for (let i = 0; i < 1000; i++) value = { inner: [value] };
    const verdict = (await guardrails.pii().check(value, context('tool-output'))) as { value: unknown };
    let bottom = verdict.value;
    for (let i = 0; i < 1000; i++) bottom = (bottom as { inner: unknown[] }).inner[0];
    expect(bottom).toBe('reach me at [redacted:email]');
  });

  it('checks a JSON text nested 1000 deep against a schema', async () => {
    const nested = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    const guard = guardrails.jsonSchema({ schema: { type: 'object' } });
    expect(await guard.check(nested, context('output'))).toMatchObject({
      action: 'trip',
      reason: 'the answer does not fit the schema: the answer must be object, got an array',
    });
  });

  it('still finds what is hidden in the noise', async () => {
    const text = `${'1 '.repeat(20_000)}\nmail jane@example.com\n${'@'.repeat(20_000)}`;
    const verdict = (await guardrails.pii({ kinds: ['email'] }).check(text, context('input'))) as {
      value: string;
    };
    expect(verdict.value).toContain('mail [redacted:email]\n');
  });
});

describe('built-ins against many matches', () => {
  it('redacts 100,000 card numbers in one run of digits', async () => {
    const text = '4111111111111111 '.repeat(100_000);
    const verdict = (await guardrails.pii().check(text, context('output'))) as {
      value: string;
      reason: string;
    };
    expect(verdict.reason).toBe('redacted 100000 card numbers');
    expect(verdict.value).toBe('[redacted:card] '.repeat(100_000));
  });
});
