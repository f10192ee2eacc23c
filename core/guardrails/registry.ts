import { NamedFactories } from '../named-factories.ts';
import { BUILTIN_GUARDRAILS } from './builtins/index.ts';
import type { Guardrail, GuardrailSpec } from './guardrail.ts';

/** Makes a named guardrail from its options (what a `{ use: name, ...options }` entry gives). */
export type GuardrailFactory = (options: Record<string, unknown>) => Guardrail;

/**
 * `kernel.guardrails`: the guardrails a config may name: the built-ins (`pii`, `max-length`,
 * `blocked-terms`, `json-schema`, `injection`, `classifier`) and those plugins register.
 */
export class GuardrailRegistry {
  readonly #named = new NamedFactories<Guardrail>(
    {
      noun: 'guardrail',
      code: 'GUARDRAIL_INVALID',
      method: 'check',
      forms: "a name ('pii'), { use: 'max-length', ...options }",
    },
    BUILTIN_GUARDRAILS,
  );

  /** Lets configs name `name`; a name taken (a built-in's included) throws GUARDRAIL_INVALID. */
  register(name: string, factory: GuardrailFactory): void {
    this.#named.register(name, factory);
  }

  has(name: string): boolean {
    return this.#named.has(name);
  }

  names(): string[] {
    return this.#named.names();
  }

  /** The guardrail `spec` names; `where` (e.g. `agents.support.guardrails.input[0]`) goes in errors. */
  resolve(spec: GuardrailSpec, where: string): Guardrail {
    return this.#named.resolve(spec, where);
  }
}
