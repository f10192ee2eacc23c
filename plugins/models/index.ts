/** The model provider plugins: `openai`, `anthropic`, `offline`, and `defaultModel` (which picks one). */
export {
  ANTHROPIC_VERSION,
  type AnthropicOptions,
  createAnthropicProvider,
  default as anthropic,
} from './anthropic.ts';
export { default as defaultModel, defaultModelRef } from './default-model.ts';
export { default as offline, OFFLINE_HELP, OfflineModel } from './offline.ts';
export { createOpenAIProvider, default as openai, type OpenAIOptions } from './openai.ts';
