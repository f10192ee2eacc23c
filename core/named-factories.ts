import { didYouMean } from './closest-name.ts';
import { HubosError } from './errors.ts';

/** How a registry of named things speaks of them in its errors, and tells an object of the kind. */
export interface NamedKind {
  /** `guardrail`, `scorer`. */
  noun: string;
  code: 'GUARDRAIL_INVALID' | 'SCORER_INVALID';
  /** The method an object of the kind has (`check`, `score`): a spec with it is used as it is. */
  method: string;
  /** The ways a spec is written, for the error of one that is none: `a name ('pii'), { use: … }`. */
  forms: string;
}

/** Makes a named thing from the options a `{ use: name, ...options }` spec gives, and a context. */
export type NamedFactory<T, C extends unknown[]> = (options: Record<string, unknown>, ...context: C) => T;

/**
 * Things configs and datasets name (guardrails, scorers): the built-ins and those plugins register,
 * each made from a spec that is a name, a name with options (`{ use, ...options }`), or an object
 * of the kind. Every mistake is the kind's code, saying where and how to fix it.
 */
export class NamedFactories<T extends { readonly name: string }, C extends unknown[] = []> {
  readonly #kind: NamedKind;
  readonly #factories: Map<string, NamedFactory<T, C>>;

  constructor(kind: NamedKind, builtins: ReadonlyMap<string, NamedFactory<T, C>>) {
    this.#kind = kind;
    this.#factories = new Map(builtins);
  }

  register(name: string, factory: NamedFactory<T, C>): void {
    const { noun, code } = this.#kind;
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_:-]{0,63}$/i.test(name))
      throw new HubosError(
        code,
        `a ${noun} name must be 1-64 letters, digits, '-', '_' or ':', got ${JSON.stringify(name)}`,
      );
    if (typeof factory !== 'function')
      throw new HubosError(code, `${noun} "${name}": register it with a function that makes it`);
    if (this.#factories.has(name))
      throw new HubosError(code, `a ${noun} named "${name}" is registered already`);
    this.#factories.set(name, factory);
  }

  has(name: string): boolean {
    return this.#factories.has(name);
  }

  names(): string[] {
    return [...this.#factories.keys()];
  }

  resolve(spec: unknown, where: string, ...context: C): T {
    const { noun, code, method, forms } = this.#kind;
    if (
      typeof spec === 'object' &&
      spec !== null &&
      typeof (spec as Record<string, unknown>)[method] === 'function'
    ) {
      const made = spec as T;
      if (typeof made.name !== 'string' || made.name === '')
        throw new HubosError(code, `${where}: a ${noun} object needs a non-empty "name"`);
      return made;
    }
    const { use, ...options } =
      typeof spec === 'string'
        ? { use: spec }
        : ((spec ?? {}) as { use?: unknown } & Record<string, unknown>);
    if (typeof use !== 'string' || use === '')
      throw new HubosError(code, `${where}: a ${noun} is ${forms}, or an object with a name and ${method}()`);
    const factory = this.#factories.get(use);
    if (!factory)
      throw new HubosError(
        code,
        `${where}: no ${noun} named "${use}"${didYouMean(use, this.names())} (known: ${this.names().join(', ')})`,
      );
    try {
      return factory(options, ...context);
    } catch (error) {
      if (HubosError.is(error, code))
        throw new HubosError(code, `${where}: ${error.message}`, { cause: error });
      throw error;
    }
  }
}
