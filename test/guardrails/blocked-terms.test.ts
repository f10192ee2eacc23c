import { describe, expect, it } from 'vitest';
import { OutputHold } from '../../core/guardrails/output-hold.ts';
import { GuardrailRegistry, guardrails } from '../../core/index.ts';
import { context } from './context.ts';

const input = context('input');

describe('blocked-terms', () => {
  it('trips on a term in any case, as a whole word only', async () => {
    const guard = guardrails.blockedTerms({ terms: ['password', 'Project Falcon'] });
    expect(await guard.check('What is the admin PASSWORD?', input)).toEqual({
      action: 'trip',
      reason: 'found a blocked term (terms[0])',
    });
    expect(await guard.check('Any news on project   falcon?', input)).toEqual({
      action: 'trip',
      reason: 'found a blocked term (terms[1])',
    });
    expect(await guard.check('Reset your passwords here; the falcons fly.', input)).toBe(undefined);
  });

  it('holds word boundaries in other scripts too', async () => {
    const guard = guardrails.blockedTerms({ terms: ['café'] });
    expect(await guard.check('Un CAFÉ noir.', input)).toMatchObject({ action: 'trip' });
    expect(await guard.check('Les cafés sont ouverts.', input)).toBe(undefined);
  });

  it('matches patterns, case-insensitive by default or with the flags given', async () => {
    const guard = guardrails.blockedTerms({ patterns: ['\\binternal-\\d+\\b', '/ACME/'] });
    expect(await guard.check('see INTERNAL-42', input)).toEqual({
      action: 'trip',
      reason: 'matched a blocked pattern (patterns[0])',
    });
    expect(await guard.check('acme is fine in lower case', input)).toBe(undefined);
    expect(await guard.check('ACME is not', input)).toMatchObject({ action: 'trip' });
  });

  it('redacts terms and patterns with action redact', async () => {
    const guard = guardrails.blockedTerms({
      terms: ['falcon'],
      patterns: ['internal-\\d+'],
      action: 'redact',
    });
    expect(await guard.check('Falcon ships in internal-7 and internal-8.', input)).toEqual({
      action: 'rewrite',
      value: '[redacted:blocked-term] ships in [redacted:blocked-term] and [redacted:blocked-term].',
      reason: 'redacted 3 blocked terms',
    });
  });

  it('sees through what hides a term from a pattern and not from a reader: zero-width and soft hyphens, full-width and accents composed apart', async () => {
    const trip = guardrails.blockedTerms({ terms: ['password', 'project falcon', 'café'] });
    for (const text of [
      'the pass\u200bword is',
      'the pass\u00adword is',
      'the \uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44 is', // full-width
      'the project\u2060 falcon plan',
      'meet at the cafe\u0301 at noon',
    ])
      expect(await trip.check(text, input), JSON.stringify(text)).toMatchObject({ action: 'trip' });
    const redact = guardrails.blockedTerms({
      terms: ['password'],
      patterns: ['\\bfalcon\\b'],
      action: 'redact',
    });
    expect(await redact.check('my pass\u200bword, ｆａｌｃｏｎ and pass\u00adwords stay', input)).toEqual({
      action: 'rewrite',
      value: 'my [redacted:blocked-term], [redacted:blocked-term] and pass\u00adwords stay',
      reason: 'redacted 2 blocked terms',
    });
  });

  it('trips on a phrase a streamed answer splits across two lines, each checked as its own piece', async () => {
    const released: string[] = [];
    const hold = new OutputHold(
      [guardrails.blockedTerms({ terms: ['project falcon'] })],
      { agent: 'a', runId: 'r', signal: new AbortController().signal },
      (text) => released.push(text),
      () => {},
    );
    await hold.push('The plan is called project\n');
    await expect(hold.push('falcon, and it ships in May.\n')).rejects.toThrow(
      /found a blocked term \(terms\[0\]\)/,
    );
    expect(released).toEqual(['The plan is called project\n']);
    // What was released is not searched again on its own, and a word it ends may go on in the piece.
    const falcon = guardrails.blockedTerms({ terms: ['falcon'], patterns: ['a\\s+falcon'] });
    expect(await falcon.check('Nest.', context('output', { before: 'The falcon flew. ' }))).toBe(undefined);
    expect(await falcon.check('ry of it.', context('output', { before: 'The falcon' }))).toBe(undefined);
  });

  it('treats regex syntax in a term as text', async () => {
    const guard = guardrails.blockedTerms({ terms: ['c++', '(beta)'] });
    expect(await guard.check('We write C++ here', input)).toMatchObject({ action: 'trip' });
    expect(await guard.check('This is the (beta) build', input)).toMatchObject({ action: 'trip' });
    expect(await guard.check('We write c here, beta builds', input)).toBe(undefined);
  });

  it.each([
    [{}, 'give at least one of "terms"'],
    [{ terms: [] }, 'give at least one of "terms"'],
    [{ terms: ['ok', ''] }, 'option "terms[1]" must be a non-empty string'],
    [{ patterns: ['(unclosed'] }, 'option "patterns[0]" is not a valid regular expression'],
    [{ patterns: ['a*'] }, 'option "patterns[0]" (a*) matches empty text'],
    [{ terms: ['x'], action: 'block' }, "option \"action\" must be 'trip' or 'redact'"],
    [{ term: ['x'] }, 'unknown option "term" (did you mean "terms"?)'],
  ])('refuses %j with GUARDRAIL_INVALID naming where', (options, message) => {
    expect(() =>
      new GuardrailRegistry().resolve(
        { use: 'blocked-terms', ...options },
        'agents.support.guardrails.output[1]',
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'GUARDRAIL_INVALID',
        message: expect.stringContaining(`agents.support.guardrails.output[1]: blocked-terms: ${message}`),
      }),
    );
  });
});

describe('blocked-terms on JSON', () => {
  it('counts the redactions of every string in one reason', async () => {
    const guard = guardrails.blockedTerms({ terms: ['falcon'], action: 'redact' });
    expect(await guard.check({ a: 'Falcon', b: ['falcon and FALCON'] }, context('tool-output'))).toEqual({
      action: 'rewrite',
      value: { a: '[redacted:blocked-term]', b: ['[redacted:blocked-term] and [redacted:blocked-term]'] },
      reason: 'redacted 3 blocked terms',
    });
  });
});
