import type { Guardrail } from '../guardrail.ts';
import type { GuardrailFactory } from '../registry.ts';
import { type BlockedTermsOptions, blockedTerms } from './blocked-terms.ts';
import { type ClassifierOptions, classifier } from './classifier.ts';
import { type InjectionOptions, injection } from './injection.ts';
import { type JsonSchemaOptions, jsonSchema } from './json-schema.ts';
import { type MaxLengthOptions, maxLength } from './max-length.ts';
import { type PiiOptions, pii } from './pii.ts';

/** The built-in guardrails as objects, for a config that lists them itself (or a check of its own). */
export interface BuiltinGuardrails {
  /** E-mail addresses, phone numbers, card numbers, IBANs and API keys: redacted, or a trip. */
  pii(options?: PiiOptions): Guardrail;
  /** Trips on a value longer than `max` characters (an answer: counted whole as it streams). */
  maxLength(options?: MaxLengthOptions): Guardrail;
  /** Trips on (or redacts) words and patterns a config forbids. */
  blockedTerms(options: BlockedTermsOptions): Guardrail;
  /** The answer (or a tool's output) must be JSON that fits a schema. */
  jsonSchema(options: JsonSchemaOptions): Guardrail;
  /** Trips on (or flags) the markers of a prompt injection in tool outputs and the user's message. */
  injection(options?: InjectionOptions): Guardrail;
  /** Asks a model whether a text breaks a policy; fails closed. */
  classifier(options: ClassifierOptions): Guardrail;
}

/** The built-ins as `hubos` exports them: `guardrails.pii({ kinds: ['email'] })`. */
export const guardrails: BuiltinGuardrails = Object.freeze({
  pii,
  maxLength,
  blockedTerms,
  jsonSchema,
  injection,
  classifier,
});

/** A built-in as a config names it: its options come from a file, so it checks them itself. */
const fromConfig =
  <O>(make: (options: O) => Guardrail): GuardrailFactory =>
  (options) =>
    make(options as O);

/** The built-in guardrails by the names a config gives them, each made from its options. */
export const BUILTIN_GUARDRAILS: ReadonlyMap<string, GuardrailFactory> = new Map<string, GuardrailFactory>([
  ['pii', fromConfig(pii)],
  ['max-length', fromConfig(maxLength)],
  ['blocked-terms', fromConfig(blockedTerms)],
  ['json-schema', fromConfig(jsonSchema)],
  ['injection', fromConfig(injection)],
  ['classifier', fromConfig(classifier)],
]);
