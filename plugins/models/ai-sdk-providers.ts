import {
  type AiSdkModelOptions,
  type AiSdkProvider,
  errorMessage,
  fromAiSdk,
  HubosError,
  isAiSdkModel,
  type LanguageModel,
  type ModelProvider,
  type Plugin,
} from '../../core/index.ts';

const NAME = 'ai-sdk-providers';
const ID_PATTERN = /^[a-zA-Z0-9_.-]+$/;

/**
 * Registers AI SDK providers as HubOS model providers, each under its key:
 * `aiSdkProviders({ groq: createGroq() })` makes `model: 'groq:llama-3.3-70b'` work. A key that
 * names a provider already registered (the built-in `openai`, `anthropic`) replaces it, whatever
 * the plugins' order: the plugin runs after the others. `options` apply to every model.
 */
export default function aiSdkProviders(
  providers: Record<string, AiSdkProvider>,
  options: AiSdkModelOptions = {},
): Plugin {
  for (const [id, provider] of Object.entries(providers)) checkProvider(id, provider);
  return {
    name: NAME,
    enforce: 'post',
    apply(kernel) {
      kernel.hooks.registerModels.tapPromise(NAME, async (models) => {
        for (const [id, provider] of Object.entries(providers)) {
          const replaced = models.replace(toModelProvider(id, provider, options));
          if (!replaced) continue;
          kernel.logger.info(
            `${NAME}: "${id}" now serves "${id}:<model>" in place of the provider registered before`,
          );
          await replaced.close?.();
        }
      });
    },
  };
}

function checkProvider(id: string, provider: unknown): void {
  if (!ID_PATTERN.test(id)) {
    throw new HubosError(
      'MODEL_CONFIG',
      `aiSdkProviders: key ${JSON.stringify(id)} is the prefix of model references: use letters, digits, "_", "-" or "."`,
      { details: { provider: id } },
    );
  }
  if (typeof (provider as Partial<AiSdkProvider> | undefined)?.languageModel !== 'function') {
    throw new HubosError(
      'MODEL_CONFIG',
      `aiSdkProviders: "${id}" must be an AI SDK provider (e.g. createOpenAICompatible({...})), something with languageModel(id)`,
      { details: { provider: id } },
    );
  }
}

function toModelProvider(id: string, provider: AiSdkProvider, options: AiSdkModelOptions): ModelProvider {
  return {
    id,
    description: `AI SDK provider "${id}"`,
    languageModel(modelId: string): LanguageModel {
      if (!modelId) {
        throw new HubosError('MODEL_CONFIG', `name a model after the colon, e.g. "${id}:<model id>"`, {
          details: { provider: id },
        });
      }
      let model: unknown;
      try {
        model = provider.languageModel(modelId);
      } catch (error) {
        throw new HubosError('MODEL_CONFIG', `${id} has no model "${modelId}": ${errorMessage(error)}`, {
          cause: error,
          details: { provider: id },
        });
      }
      if (!isAiSdkModel(model)) {
        throw new HubosError(
          'MODEL_CONFIG',
          `${id}.languageModel("${modelId}") did not return an AI SDK language model (with doStream)`,
          { details: { provider: id } },
        );
      }
      // References name the model by this key, so the agent's model reads `groq:llama-3.3-70b`.
      return { ...fromAiSdk(model, options), provider: id };
    },
  };
}
