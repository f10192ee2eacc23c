import type { HubosConfig, Plugin } from '../../core/index.ts';

/** The model used when the config names none: the provider whose key is set, else the offline demo. */
export function defaultModelRef(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) return 'openai:gpt-4.1-mini';
  if (env.ANTHROPIC_API_KEY) return 'anthropic:claude-sonnet-4-5';
  return 'offline';
}

/** Fills the top-level `model` from the environment when the config leaves it out. */
export default function defaultModel(env: NodeJS.ProcessEnv = process.env): Plugin {
  return {
    name: 'default-model',
    enforce: 'post',
    apply(kernel) {
      kernel.hooks.config.tap('default-model', (config: HubosConfig) =>
        config.model ? config : { ...config, model: defaultModelRef(env) },
      );
    },
  };
}
