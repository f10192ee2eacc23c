import { describe, expect, it } from 'vitest';
import { defineGuardrail, GuardrailRegistry, guardrails, pass, rewrite, trip } from '../../core/index.ts';
import { context } from './context.ts';

describe('the guardrail registry with the built-ins', () => {
  it('knows every built-in by name', () => {
    expect(new GuardrailRegistry().names()).toEqual([
      'pii',
      'max-length',
      'blocked-terms',
      'json-schema',
      'injection',
      'classifier',
    ]);
  });

  it('resolves a name, a name with options, and an object', async () => {
    const registry = new GuardrailRegistry();
    const byName = registry.resolve('pii', 'agents.support.guardrails.output[0]');
    expect(byName.name).toBe('pii');
    expect(await byName.check('mail me at a@example.com', context('output'))).toMatchObject({
      value: 'mail me at [redacted:email]',
    });

    const withOptions = registry.resolve(
      { use: 'max-length', max: 10 },
      'agents.support.guardrails.output[1]',
    );
    expect(await withOptions.check('eleven char', context('output'))).toEqual(
      trip('11 characters, over the limit of 10'),
    );

    const own = defineGuardrail({
      name: 'no-refunds',
      check: (value) => (/refund/i.test(String(value)) ? trip('mentions refunds') : pass()),
    });
    expect(registry.resolve(own, 'guardrails.output[0]')).toBe(own);
    expect(registry.resolve(guardrails.injection({ action: 'flag' }), 'guardrails.tool[0]').name).toBe(
      'injection',
    );
  });

  it('refuses an unknown name naming where, the closest name and the known ones', () => {
    expect(() =>
      new GuardrailRegistry().resolve('max-lenght', 'agents.support.guardrails.output[2]'),
    ).toThrow(
      expect.objectContaining({
        code: 'GUARDRAIL_INVALID',
        message:
          'agents.support.guardrails.output[2]: no guardrail named "max-lenght" (did you mean "max-length"?) (known: pii, max-length, blocked-terms, json-schema, injection, classifier)',
      }),
    );
    expect(() => new GuardrailRegistry().resolve({ use: 'PII' }, 'guardrails.input[0]')).toThrow(
      'guardrails.input[0]: no guardrail named "PII" (did you mean "pii"?)',
    );
  });

  it('lets a plugin register its own, and not over a built-in', async () => {
    const registry = new GuardrailRegistry();
    registry.register('no-refunds', (options) =>
      defineGuardrail({
        name: 'no-refunds',
        stages: ['output'],
        check: (value) =>
          String(value).includes(String(options.word ?? 'refund'))
            ? rewrite('[policy]', 'hid it')
            : undefined,
      }),
    );
    const made = registry.resolve({ use: 'no-refunds', word: 'money back' }, 'guardrails.output[0]');
    expect(await made.check('you get your money back', context('output'))).toEqual(
      rewrite('[policy]', 'hid it'),
    );
    expect(() => registry.register('pii', () => guardrails.pii())).toThrow(
      'a guardrail named "pii" is registered already',
    );
  });

  it('defineGuardrail refuses a guardrail without a name, a check, or with unknown stages', () => {
    expect(() => defineGuardrail({ name: '', check: () => undefined })).toThrow(
      expect.objectContaining({
        code: 'GUARDRAIL_INVALID',
        message: expect.stringContaining('non-empty "name"'),
      }),
    );
    expect(() => defineGuardrail({ name: 'x' } as never)).toThrow(
      'guardrail "x": "check" must be a function',
    );
    expect(() =>
      defineGuardrail({ name: 'x', stages: ['outputs' as never], check: () => undefined }),
    ).toThrow(
      `guardrail "x": "stages" must be a non-empty list of 'input', 'output', 'tool-input', 'tool-output'`,
    );
    expect(() =>
      defineGuardrail({ name: 'x', streaming: 'stream' as never, check: () => undefined }),
    ).toThrow(`"streaming" must be 'sentence' or 'whole'`);
  });
});
