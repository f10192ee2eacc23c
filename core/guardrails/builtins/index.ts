import type { Guardrail } from '../guardrail.ts';
import type { GuardrailFactory } from '../registry.ts';
import { type PiiOptions, pii } from './pii.ts';

/** The built-in guardrails by name, each made from its options. */
export const BUILTIN_GUARDRAILS: ReadonlyMap<string, GuardrailFactory> = new Map<string, GuardrailFactory>([
  ['pii', pii],
]);

/** The built-in guardrails as objects, for a config that lists them itself (or a check of its own). */
export interface BuiltinGuardrails {
  /** E-mail addresses, phone numbers, card numbers, IBANs and API keys: redacted, or a trip. */
  pii(options?: PiiOptions): Guardrail;
}

/** The built-ins as `hubos` exports them: `guardrails.pii({ kinds: ['email'] })`. */
export const guardrails: BuiltinGuardrails = Object.freeze({ pii });
