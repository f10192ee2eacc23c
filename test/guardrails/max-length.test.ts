import { describe, expect, it } from 'vitest';
import { GuardrailRegistry, guardrails, HubosError } from '../../core/index.ts';
import { context } from './context.ts';

describe('max-length', () => {
  it('passes a message at the limit and trips one over it', async () => {
    const guard = guardrails.maxLength({ max: 10 });
    expect(await guard.check('0123456789', context('input'))).toBe(undefined);
    expect(await guard.check('0123456789!', context('input'))).toEqual({
      action: 'trip',
      reason: '11 characters, over the limit of 10',
    });
  });

  it('counts a streamed answer whole: what was released before the piece and the piece', async () => {
    const guard = guardrails.maxLength({ max: 40 });
    expect(await guard.check('Second sentence.', context('output', { before: 'First sentence. ' }))).toBe(
      undefined,
    );
    expect(
      await guard.check(
        'Third sentence.',
        context('output', { before: 'First sentence. Second sentence. ' }),
      ),
    ).toEqual({ action: 'trip', reason: '48 characters, over the limit of 40' });
  });

  it('measures JSON arguments by their JSON text', async () => {
    const guard = guardrails.maxLength({ max: 20 });
    expect(await guard.check({ q: 'short' }, context('tool-input'))).toBe(undefined);
    expect(await guard.check({ q: 'a much longer query' }, context('tool-input'))).toMatchObject({
      action: 'trip',
    });
  });

  it('defaults to 20,000 characters', async () => {
    const guard = guardrails.maxLength();
    expect(await guard.check('x'.repeat(20_000), context('input'))).toBe(undefined);
    expect(await guard.check('x'.repeat(20_001), context('input'))).toMatchObject({ action: 'trip' });
  });

  it.each([
    [{ max: 0 }, 'got integer 0'],
    [{ max: '10' }, 'got string "10"'],
    [{ max: 2.5 }, 'got number 2.5'],
    [{ maximum: 10 }, 'unknown option "maximum"'],
  ])('refuses %j naming the option and an example', (options, given) => {
    expect(() =>
      new GuardrailRegistry().resolve({ use: 'max-length', ...options }, 'agents.a.guardrails.output[0]'),
    ).toThrow(
      expect.objectContaining({ code: 'GUARDRAIL_INVALID', message: expect.stringContaining(given) }),
    );
    try {
      guardrails.maxLength(options as never);
    } catch (error) {
      expect(HubosError.is(error, 'GUARDRAIL_INVALID')).toBe(true);
      expect((error as Error).message).toMatch(/^max-length: /);
    }
  });
});
