import { describe, expect, it } from 'vitest';
import type { Guardrail, GuardrailContext } from '../../core/guardrails/guardrail.ts';
import { GuardrailRegistry } from '../../core/guardrails/registry.ts';
import { resolveGuardrails } from '../../core/guardrails/resolve-guardrails.ts';
import { GuardrailTripped, runGuardrails } from '../../core/guardrails/run-guardrails.ts';
import { blockTerm, CARD_NUMBER, redactCards, spy } from './test-guardrails.ts';

const ctx = (stage: GuardrailContext['stage']): GuardrailContext => ({
  stage,
  agent: 'a',
  runId: 'r1',
  signal: new AbortController().signal,
});

const upper: Guardrail = {
  name: 'upper',
  check: (value) => ({ action: 'rewrite', value: String(value).toUpperCase(), reason: 'shouting' }),
};

describe('runGuardrails', () => {
  it('runs a stage’s list in order, each on the one before’s rewrite, and records every verdict', async () => {
    const after = spy('after');
    const outcome = await runGuardrails(
      [redactCards(), upper, after.guardrail],
      `pay with ${CARD_NUMBER} now`,
      ctx('input'),
    );
    expect(outcome.value).toBe('PAY WITH [REDACTED:CARD] NOW');
    expect(after.seen.map((s) => s.value)).toEqual(['PAY WITH [REDACTED:CARD] NOW']);
    expect(outcome.verdicts).toEqual([
      { guardrail: 'cards', stage: 'input', action: 'rewrite', reason: 'a card number' },
      { guardrail: 'upper', stage: 'input', action: 'rewrite', reason: 'shouting' },
      { guardrail: 'after', stage: 'input', action: 'pass' },
    ]);
  });

  it('skips a guardrail whose stages leave the stage out', async () => {
    const outcome = await runGuardrails(
      [blockTerm('secret', { stages: ['output'] })],
      'a secret',
      ctx('input'),
    );
    expect(outcome).toEqual({ value: 'a secret', verdicts: [] });
  });

  it('throws GUARDRAIL_TRIPPED naming the guardrail, the stage and the reason, and stops the list', async () => {
    const later = spy('later');
    const error = await runGuardrails(
      [upper, blockTerm('secret'), later.guardrail],
      'a secret',
      ctx('output'),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripped);
    const tripped = error as GuardrailTripped;
    expect(tripped.code).toBe('GUARDRAIL_TRIPPED');
    expect(tripped.status).toBe(422);
    expect(tripped.message).toBe('guardrail "block-secret" tripped on the output: it says "secret"');
    expect(tripped.details).toEqual({
      guardrail: 'block-secret',
      stage: 'output',
      reason: 'it says "secret"',
    });
    expect(tripped.verdicts.map((v) => `${v.guardrail}:${v.action}`)).toEqual([
      'upper:rewrite',
      'block-secret:trip',
    ]);
    expect(later.seen).toHaveLength(0);
  });

  it('trips (fails closed) when a check throws or answers something that is not a verdict', async () => {
    const throwing: Guardrail = {
      name: 'broken',
      check: () => {
        throw new Error('no network');
      },
    };
    const odd: Guardrail = { name: 'odd', check: () => ({ action: 'maybe' }) as never };
    await expect(runGuardrails([throwing], 'x', ctx('input'))).rejects.toThrow(
      'guardrail "broken" tripped on the input: its check failed: no network',
    );
    await expect(runGuardrails([odd], 'x', ctx('input'))).rejects.toThrow(
      'guardrail "odd" tripped on the input: its check answered something that is not a verdict',
    );
  });

  it('gives a tool stage’s verdicts the call’s id', async () => {
    const outcome = await runGuardrails(
      [redactCards()],
      { card: CARD_NUMBER },
      {
        ...ctx('tool-input'),
        call: { id: 'c1', name: 'pay' },
      },
    );
    expect(outcome.value).toEqual({ card: '[redacted:card]' });
    expect(outcome.verdicts[0]).toMatchObject({ stage: 'tool-input', callId: 'c1', action: 'rewrite' });
  });
});

describe('resolveGuardrails', () => {
  it('names the config path and the known guardrails for an unknown name', () => {
    const registry = new GuardrailRegistry();
    registry.register('house-rules', () => upper);
    expect(() =>
      resolveGuardrails(registry, { input: ['house-rules', 'house-rule'] }, 'agents.support.guardrails'),
    ).toThrow(
      /agents\.support\.guardrails\.input\[1\]: no guardrail named "house-rule".*known: .*house-rules/,
    );
  });

  it('splits the tool list by stage, leaving out those whose stages leave a stage out', () => {
    const registry = new GuardrailRegistry();
    const argsOnly = blockTerm('x', { stages: ['tool-input'] });
    const made = resolveGuardrails(registry, { tool: [argsOnly, upper], output: [argsOnly] }, 'guardrails');
    expect(made.toolInput.map((g) => g.name)).toEqual(['block-x', 'upper']);
    expect(made.toolOutput.map((g) => g.name)).toEqual(['upper']);
    expect(made.output).toEqual([]);
  });
});
