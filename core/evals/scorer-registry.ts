import { didYouMean } from '../closest-name.ts';
import { HubosError } from '../errors.ts';
import type { Scorer, ScorerSpec } from './experiment.ts';
import { BUILTIN_SCORERS } from './scorers/index.ts';
import type { ScorerContext, ScorerFactory } from './scorers/scorer-context.ts';

/**
 * `kernel.scorers`: the scorers a dataset or `--scorer` may name: the built-ins (`exact`,
 * `contains`, `regex`, `json-schema`, `trajectory`, `judge`, `latency`, `steps`, `tokens`, `cost`)
 * and those plugins register.
 */
export class ScorerRegistry {
  readonly #factories = new Map<string, ScorerFactory>(BUILTIN_SCORERS);

  /** Lets datasets name `name`; a name taken (a built-in's included) throws SCORER_INVALID. */
  register(name: string, factory: ScorerFactory): void {
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_:-]{0,63}$/i.test(name))
      throw new HubosError(
        'SCORER_INVALID',
        `a scorer name must be 1-64 letters, digits, '-', '_' or ':', got ${JSON.stringify(name)}`,
      );
    if (typeof factory !== 'function')
      throw new HubosError('SCORER_INVALID', `scorer "${name}": register it with a function that makes it`);
    if (this.#factories.has(name))
      throw new HubosError('SCORER_INVALID', `a scorer named "${name}" is registered already`);
    this.#factories.set(name, factory);
  }

  has(name: string): boolean {
    return this.#factories.has(name);
  }

  names(): string[] {
    return [...this.#factories.keys()];
  }

  /** The scorer `spec` names; `where` (e.g. `scorers[1]`) goes in errors. */
  resolve(spec: ScorerSpec, context: ScorerContext, where = 'scorer'): Scorer {
    if (typeof spec === 'object' && spec !== null && typeof (spec as Scorer).score === 'function') {
      const scorer = spec as Scorer;
      if (typeof scorer.name !== 'string' || scorer.name === '')
        throw new HubosError('SCORER_INVALID', `${where}: a scorer object needs a non-empty "name"`);
      return scorer;
    }
    const { use, ...options } =
      typeof spec === 'string'
        ? { use: spec }
        : ((spec ?? {}) as { use?: unknown } & Record<string, unknown>);
    if (typeof use !== 'string' || use === '')
      throw new HubosError(
        'SCORER_INVALID',
        `${where}: a scorer is a name ('contains'), { use: 'judge', ...options }, or an object with a name and score()`,
      );
    const factory = this.#factories.get(use);
    if (!factory)
      throw new HubosError(
        'SCORER_INVALID',
        `${where}: no scorer named "${use}"${didYouMean(use, this.names())} (known: ${this.names().join(', ')})`,
      );
    try {
      return factory(options, context);
    } catch (error) {
      if (HubosError.is(error, 'SCORER_INVALID'))
        throw new HubosError('SCORER_INVALID', `${where}: ${error.message}`, { cause: error });
      throw error;
    }
  }
}
