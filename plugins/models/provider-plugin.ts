import type { JSONSchemaObject, ModelProvider, Plugin } from '../../core/index.ts';
import { mergeOptions } from './http.ts';

/**
 * The plugin of a model provider configured under one config key (`openai`, `anthropic`): it owns
 * the key and registers the provider in `registerModels`, when the config is resolved and
 * validated. Factory options win over the config's. The kernel closes the provider (and its
 * connection pool) when it closes.
 */
export function providerPlugin<O extends object>(
  key: string,
  schema: JSONSchemaObject,
  options: O,
  create: (options: O) => ModelProvider,
): Plugin {
  return {
    name: key,
    configSchema: { [key]: schema },
    apply(kernel) {
      kernel.hooks.registerModels.tap(key, (models) => {
        const config = (kernel.config as Record<string, unknown>)[key] as O | undefined;
        models.register(create(mergeOptions(options, config)));
      });
    },
  };
}
