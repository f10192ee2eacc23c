import { NamedFactories } from '../named-factories.ts';
import type { Scorer, ScorerSpec } from './experiment.ts';
import { BUILTIN_SCORERS } from './scorers/index.ts';
import type { ScorerContext, ScorerFactory } from './scorers/scorer-context.ts';

/**
 * `kernel.scorers`: the scorers a dataset or `--scorer` may name: the built-ins (`exact`,
 * `contains`, `regex`, `json-schema`, `trajectory`, `judge`, `latency`, `steps`, `tokens`, `cost`)
 * and those plugins register.
 */
export class ScorerRegistry {
  readonly #named = new NamedFactories<Scorer, [ScorerContext]>(
    {
      noun: 'scorer',
      code: 'SCORER_INVALID',
      method: 'score',
      forms: "a name ('contains'), { use: 'judge', ...options }",
    },
    BUILTIN_SCORERS,
  );

  /** Lets datasets name `name`; a name taken (a built-in's included) throws SCORER_INVALID. */
  register(name: string, factory: ScorerFactory): void {
    this.#named.register(name, factory);
  }

  has(name: string): boolean {
    return this.#named.has(name);
  }

  names(): string[] {
    return this.#named.names();
  }

  /** The scorer `spec` names; `where` (e.g. `scorers[1]`) goes in errors. */
  resolve(spec: ScorerSpec, context: ScorerContext, where = 'scorer'): Scorer {
    return this.#named.resolve(spec, where, context);
  }
}
