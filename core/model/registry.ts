import { didYouMean } from '../closest-name.ts';
import { HubosError } from '../errors.ts';
import { type LanguageModel, parseModelRef } from './model.ts';

/** A source of language models, e.g. `openai` for `'openai:gpt-4.1-mini'`. */
export interface ModelProvider {
  /** The prefix of model references this provider serves. */
  id: string;
  description?: string;
  /** Builds the model named after the colon (`gpt-4.1-mini`); may throw MODEL_CONFIG for a bad setup. */
  languageModel(modelId: string): LanguageModel;
  /** Releases connections when the kernel closes. */
  close?(): Promise<void>;
}

/** Model providers by id, filled by plugins in the kernel's `registerModels` hook. */
export class ModelRegistry {
  readonly #providers = new Map<string, ModelProvider>();

  register(provider: ModelProvider): void {
    if (this.#providers.has(provider.id)) {
      throw new HubosError('MODEL_DUPLICATE', `model provider "${provider.id}" is already registered`);
    }
    this.#providers.set(provider.id, provider);
  }

  /** Registers `provider`, replacing the one registered under its id; returns the replaced one (for the caller to close). */
  replace(provider: ModelProvider): ModelProvider | undefined {
    const replaced = this.#providers.get(provider.id);
    this.#providers.set(provider.id, provider);
    return replaced;
  }

  get(id: string): ModelProvider {
    const provider = this.#providers.get(id);
    if (!provider) {
      const known = [...this.#providers.keys()].join(', ') || 'none';
      throw new HubosError(
        'MODEL_NOT_FOUND',
        `no model provider "${id}"${didYouMean(id, this.#providers.keys())} (registered: ${known})`,
        {
          details: { provider: id },
        },
      );
    }
    return provider;
  }

  has(id: string): boolean {
    return this.#providers.has(id);
  }

  list(): ModelProvider[] {
    return [...this.#providers.values()];
  }

  /** The model a reference names: `'openai:gpt-4.1-mini'`, `'anthropic:claude-sonnet-4-5'`, `'offline'`. */
  resolve(ref: string): LanguageModel {
    const { provider, modelId } = parseModelRef(ref);
    return this.get(provider).languageModel(modelId);
  }

  async close(): Promise<void> {
    await Promise.all(this.list().map((provider) => provider.close?.()));
  }
}
