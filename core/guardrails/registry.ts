import { didYouMean } from '../closest-name.ts';
import { HubosError } from '../errors.ts';
import { BUILTIN_GUARDRAILS } from './builtins/index.ts';
import type { Guardrail, GuardrailSpec } from './guardrail.ts';

/** Makes a named guardrail from its options (what a `{ use: name, ...options }` entry gives). */
export type GuardrailFactory = (options: Record<string, unknown>) => Guardrail;

/**
 * `kernel.guardrails`: the guardrails a config may name: the built-ins (`pii`, `max-length`,
 * `blocked-terms`, `json-schema`, `injection`, `classifier`) and those plugins register.
 */
export class GuardrailRegistry {
  readonly #factories = new Map<string, GuardrailFactory>(BUILTIN_GUARDRAILS);

  /** Lets configs name `name`; a name taken (a built-in's included) throws GUARDRAIL_INVALID. */
  register(name: string, factory: GuardrailFactory): void {
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_:-]{0,63}$/i.test(name))
      throw new HubosError(
        'GUARDRAIL_INVALID',
        `a guardrail name must be 1-64 letters, digits, '-', '_' or ':', got ${JSON.stringify(name)}`,
      );
    if (typeof factory !== 'function')
      throw new HubosError(
        'GUARDRAIL_INVALID',
        `guardrail "${name}": register it with a function that makes it`,
      );
    if (this.#factories.has(name))
      throw new HubosError('GUARDRAIL_INVALID', `a guardrail named "${name}" is registered already`);
    this.#factories.set(name, factory);
  }

  has(name: string): boolean {
    return this.#factories.has(name);
  }

  names(): string[] {
    return [...this.#factories.keys()];
  }

  /** The guardrail `spec` names; `where` (e.g. `agents.support.guardrails.input[0]`) goes in errors. */
  resolve(spec: GuardrailSpec, where: string): Guardrail {
    if (typeof spec === 'object' && spec !== null && typeof (spec as Guardrail).check === 'function') {
      const guardrail = spec as Guardrail;
      if (typeof guardrail.name !== 'string' || guardrail.name === '')
        throw new HubosError('GUARDRAIL_INVALID', `${where}: a guardrail object needs a non-empty "name"`);
      return guardrail;
    }
    const { use, ...options } =
      typeof spec === 'string'
        ? { use: spec }
        : ((spec ?? {}) as { use?: unknown } & Record<string, unknown>);
    if (typeof use !== 'string' || use === '')
      throw new HubosError(
        'GUARDRAIL_INVALID',
        `${where}: a guardrail is a name ('pii'), { use: 'max-length', ...options }, or an object with a name and check()`,
      );
    const factory = this.#factories.get(use);
    if (!factory)
      throw new HubosError(
        'GUARDRAIL_INVALID',
        `${where}: no guardrail named "${use}"${didYouMean(use, this.names())} (known: ${this.names().join(', ')})`,
      );
    try {
      return factory(options);
    } catch (error) {
      if (HubosError.is(error, 'GUARDRAIL_INVALID'))
        throw new HubosError('GUARDRAIL_INVALID', `${where}: ${error.message}`);
      throw error;
    }
  }
}
