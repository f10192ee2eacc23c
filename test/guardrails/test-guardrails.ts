import type { Guardrail, GuardrailContext, GuardrailStage } from '../../core/guardrails/guardrail.ts';

/** Digits of a card number, spaced or not: what the tests' `pii` stand-in redacts. */
const CARD = /\b(?:\d[ -]?){12,18}\d\b/g;

/** Redacts card numbers in text, and in every string of JSON (tool arguments and outputs). */
export function redactCards(stages?: GuardrailStage[]): Guardrail {
  return {
    name: 'cards',
    streaming: 'sentence',
    ...(stages ? { stages } : {}),
    check(value) {
      const redacted = mapStrings(value, (text) => text.replace(CARD, '[redacted:card]'));
      return JSON.stringify(redacted) === JSON.stringify(value)
        ? { action: 'pass' }
        : { action: 'rewrite', value: redacted, reason: 'a card number' };
    },
  };
}

/** Trips on a term anywhere in the value (its JSON for a tool's). */
export function blockTerm(
  term: string,
  options: { streaming?: 'sentence' | 'whole'; stages?: GuardrailStage[] } = {},
): Guardrail {
  return {
    name: `block-${term}`,
    streaming: options.streaming ?? 'sentence',
    ...(options.stages ? { stages: options.stages } : {}),
    check(value) {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return text.toLowerCase().includes(term.toLowerCase())
        ? { action: 'trip', reason: `it says "${term}"` }
        : undefined;
    },
  };
}

/** Records what it was asked to check, passing everything. */
export function spy(name = 'spy', streaming: 'sentence' | 'whole' = 'sentence') {
  const seen: { value: unknown; ctx: GuardrailContext }[] = [];
  const guardrail: Guardrail = {
    name,
    streaming,
    check(value, ctx) {
      seen.push({ value, ctx: { ...ctx } });
      return undefined;
    },
  };
  return { guardrail, seen };
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  return value;
}

export const CARD_NUMBER = '4111 1111 1111 1111';
