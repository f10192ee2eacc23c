import { HubosError } from '../errors.ts';
import { fallbackModel, isFallbackModel } from './fallback-model.ts';
import type { LanguageModel, ModelObject, ModelSetting } from './model.ts';

/** The JSON schema of a `model` setting: a reference, a model object, or a fallback chain of them. */
export const MODEL_SETTING_SCHEMA = {
  anyOf: [
    { type: 'string', minLength: 1 },
    { type: 'object' },
    {
      type: 'array',
      minItems: 1,
      maxItems: 16,
      items: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }] },
      description: 'A fallback chain: the first model, then the next when one stays down.',
    },
  ],
} as const;

/**
 * The model a setting names: one model, wrapped as a chain of one (its dropped streams are retried),
 * or a fallback chain. `one` makes each model of it (rate limits applied); `where` names the
 * setting in errors.
 */
export function resolveModelSetting(
  setting: ModelSetting,
  one: (ref: string | ModelObject) => LanguageModel,
  where: string,
): LanguageModel {
  if (!Array.isArray(setting)) {
    const model = one(setting as string | ModelObject);
    // A chain given again (a sub-agent on its parent's model) is not wrapped twice: its retries would multiply.
    return isFallbackModel(model) ? model : fallbackModel([model]);
  }
  if (setting.length === 0)
    throw new HubosError('AGENT_INVALID', `${where}: a fallback chain needs at least one model`);
  return fallbackModel(setting.map((ref) => one(ref)));
}
