import { HubosError } from '../errors.ts';
import type { Guardrail, GuardrailSpec, GuardrailStage, GuardrailsConfig } from './guardrail.ts';
import type { GuardrailRegistry } from './registry.ts';
import { checksAt } from './run-guardrails.ts';

/** A config's guardrails made, by the stage they check at (those whose `stages` leave it out left out). */
export interface StageGuardrails {
  input: readonly Guardrail[];
  output: readonly Guardrail[];
  toolInput: readonly Guardrail[];
  toolOutput: readonly Guardrail[];
}

export const GUARDRAIL_SPEC_SCHEMA = {
  anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }],
} as const;

/** `agents.<name>.guardrails` and the top-level `guardrails`: lists of names, `{ use, ...options }` or objects. */
export const GUARDRAILS_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    input: { type: 'array', items: GUARDRAIL_SPEC_SCHEMA },
    output: { type: 'array', items: GUARDRAIL_SPEC_SCHEMA },
    tool: { type: 'array', items: GUARDRAIL_SPEC_SCHEMA },
  },
  additionalProperties: false,
} as const;

const LISTS = ['input', 'output', 'tool'] as const;

/**
 * Makes a config's guardrails; `where` (`agents.support.guardrails`, `guardrails`) names the entry
 * in errors: an unknown name or bad options throw GUARDRAIL_INVALID at `<where>.<list>[i]`.
 */
export function resolveGuardrails(
  registry: GuardrailRegistry,
  config: GuardrailsConfig | undefined,
  where: string,
): StageGuardrails {
  if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config)))
    throw new HubosError('GUARDRAIL_INVALID', `${where}: expected { input?, output?, tool? }, each a list`);
  const made: Record<(typeof LISTS)[number], Guardrail[]> = { input: [], output: [], tool: [] };
  for (const list of LISTS) {
    const specs = config?.[list];
    if (specs === undefined) continue;
    if (!Array.isArray(specs))
      throw new HubosError('GUARDRAIL_INVALID', `${where}.${list}: expected a list of guardrails`);
    made[list] = specs.map((spec: GuardrailSpec, i) => registry.resolve(spec, `${where}.${list}[${i}]`));
  }
  const at = (list: Guardrail[], stage: GuardrailStage) => list.filter((g) => checksAt(g, stage));
  return {
    input: at(made.input, 'input'),
    output: at(made.output, 'output'),
    toolInput: at(made.tool, 'tool-input'),
    toolOutput: at(made.tool, 'tool-output'),
  };
}

/** The config-wide guardrails, then an agent's own; undefined when there are none (the run checks nothing). */
export function agentGuardrails(
  global: StageGuardrails | undefined,
  own: StageGuardrails,
): StageGuardrails | undefined {
  const merged: StageGuardrails = {
    input: [...(global?.input ?? []), ...own.input],
    output: [...(global?.output ?? []), ...own.output],
    toolInput: own.toolInput,
    toolOutput: own.toolOutput,
  };
  return isEmpty(merged) ? undefined : merged;
}

export function isEmpty(guardrails: StageGuardrails): boolean {
  return (
    guardrails.input.length === 0 &&
    guardrails.output.length === 0 &&
    guardrails.toolInput.length === 0 &&
    guardrails.toolOutput.length === 0
  );
}
