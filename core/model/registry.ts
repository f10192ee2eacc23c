import { HubosError } from '../errors.ts';

/** A source of language models, e.g. `openai` for `'openai:gpt-4.1-mini'`. */
export interface ModelProvider {
  /** The prefix of model references this provider serves. */
  id: string;
  description?: string;
}

/** Model providers by id, filled by plugins in the kernel's `registerModels` hook. */
export class ModelRegistry<P extends ModelProvider = ModelProvider> {
  readonly #providers = new Map<string, P>();

  register(provider: P): void {
    if (this.#providers.has(provider.id)) {
      throw new HubosError('MODEL_DUPLICATE', `model provider "${provider.id}" is already registered`);
    }
    this.#providers.set(provider.id, provider);
  }

  get(id: string): P {
    const provider = this.#providers.get(id);
    if (!provider) {
      const known = [...this.#providers.keys()].join(', ') || 'none';
      throw new HubosError('MODEL_NOT_FOUND', `no model provider "${id}" (registered: ${known})`);
    }
    return provider;
  }

  has(id: string): boolean {
    return this.#providers.has(id);
  }

  list(): P[] {
    return [...this.#providers.values()];
  }
}
