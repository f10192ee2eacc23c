import { HubosError, isModelObject } from '../../core/index.ts';
import { createAjv, describeErrors } from '../../core/internal.ts';
import {
  GENERAL_PURPOSE,
  GENERAL_PURPOSE_DESCRIPTION,
  SUBAGENT_TYPE_SCHEMA,
  type SubagentType,
  TYPE_NAME_PATTERN,
} from './subagent-type.ts';

/** A type as the `task` tool uses it; `inherit` (the built-in general-purpose) takes the caller's tools. */
export interface ResolvedSubagentType extends SubagentType {
  name: string;
  inherit?: boolean;
}

const validate = createAjv().compile(SUBAGENT_TYPE_SCHEMA);
const namePattern = new RegExp(TYPE_NAME_PATTERN);

/**
 * The sub-agent types of one kernel. Plugins add theirs in the `registerTypes` hook
 * (`types.register('reviewer', { description, instructions, tools })`); a name taken by another
 * plugin is `AGENT_EXISTS`. The app's own (config `subagents`, the plugin's options) then
 * `override` any of them, and `general-purpose` is built in unless something replaced it.
 */
export class SubagentTypes {
  readonly #types = new Map<string, ResolvedSubagentType>();

  /** Adds a type; throws `AGENT_INVALID` for a bad name or definition, `AGENT_EXISTS` for a taken name. */
  register(name: string, type: SubagentType): void {
    if (this.#types.has(name)) {
      throw new HubosError('AGENT_EXISTS', `a sub-agent type named "${name}" is already registered`, {
        details: { subagentType: name },
      });
    }
    this.override(name, type);
  }

  /** Adds or replaces a type (the app's config wins over plugins). */
  override(name: string, type: SubagentType): void {
    if (typeof name !== 'string' || !namePattern.test(name)) {
      throw new HubosError(
        'AGENT_INVALID',
        `sub-agent type name ${JSON.stringify(name)} must match ${TYPE_NAME_PATTERN}`,
        { details: { subagentType: name } },
      );
    }
    // Validate plain data; a model object is checked for shape only.
    if (!validate({ ...type, ...(typeof type?.model === 'object' ? { model: {} } : {}) })) {
      const problems = describeErrors(validate.errors, type).join('; ');
      throw new HubosError('AGENT_INVALID', `sub-agent type "${name}": ${problems}`, {
        details: { subagentType: name },
      });
    }
    if (typeof type.model === 'object' && !isModelObject(type.model)) {
      throw new HubosError(
        'AGENT_INVALID',
        `sub-agent type "${name}": "model" must be a model reference, a LanguageModel or an AI SDK language model`,
        { details: { subagentType: name } },
      );
    }
    this.#types.set(name, { ...type, name });
  }

  /** Adds the built-in general-purpose type, first in the list, unless one is registered. */
  addBuiltIn(): void {
    if (this.#types.has(GENERAL_PURPOSE)) return;
    const rest = [...this.#types];
    this.#types.clear();
    this.#types.set(GENERAL_PURPOSE, {
      name: GENERAL_PURPOSE,
      description: GENERAL_PURPOSE_DESCRIPTION,
      inherit: true,
    });
    for (const [name, type] of rest) this.#types.set(name, type);
  }

  get(name: string): ResolvedSubagentType | undefined {
    return this.#types.get(name);
  }

  has(name: string): boolean {
    return this.#types.has(name);
  }

  names(): string[] {
    return [...this.#types.keys()];
  }

  list(): ResolvedSubagentType[] {
    return [...this.#types.values()];
  }
}
