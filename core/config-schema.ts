import { SESSIONS_CONFIG_SCHEMA } from './agent/sessions.ts';
import { AGENT_TEMPLATE_SCHEMA } from './agent/spec.ts';
import { BUS_CONFIG_SCHEMA } from './bus/open-bus.ts';
import { didYouMean } from './closest-name.ts';
import { CONFIG_CHECKS } from './config-checks.generated.ts';
import { CONTEXT_CONFIG_SCHEMA } from './context/context-config.ts';
import { HubosError } from './errors.ts';
import { EVALS_CONFIG_SCHEMA } from './evals/evals-config.ts';
import { GUARDRAILS_CONFIG_SCHEMA } from './guardrails/resolve-guardrails.ts';
import {
  type Ajv,
  createAjv,
  describeErrors,
  type ErrorObject,
  type JSONSchemaObject,
  type ValidateFunction,
} from './json-schema.ts';
import { MODEL_LIMITS_CONFIG_SCHEMA } from './model/model-limits.ts';
import { MODEL_SETTING_SCHEMA } from './model/model-setting.ts';
import { RATE_LIMITS_CONFIG_SCHEMA } from './model/rate-limits.ts';
import { permissionsSchema } from './permissions.ts';
import { RUNS_CONFIG_SCHEMA } from './runs/run-retention.ts';
import { STORE_CONFIG_SCHEMA } from './store/open-store.ts';
import { TELEMETRY_CONFIG_SCHEMA } from './telemetry/telemetry-config.ts';
import { PRICING_CONFIG_SCHEMA } from './usage/pricing-config.ts';

/** The keys the kernel itself owns. Plugins add theirs through `configSchema`. */
export const CORE_CONFIG_SCHEMA: Record<string, JSONSchemaObject> = {
  plugins: {
    type: 'array',
    description: 'Plugins: objects, falsy entries, nested arrays, module specifiers or [specifier, options].',
  },
  agents: {
    type: 'object',
    description: 'Agent templates by name.',
    propertyNames: { pattern: '^[a-zA-Z0-9_-]{1,64}$' },
    additionalProperties: AGENT_TEMPLATE_SCHEMA,
  },
  model: {
    ...MODEL_SETTING_SCHEMA,
    description:
      "The default model of agents: a reference, e.g. 'openai:gpt-4.1-mini', a model object, or an array of them: a fallback chain tried in order.",
  },
  store: STORE_CONFIG_SCHEMA,
  bus: BUS_CONFIG_SCHEMA,
  sessions: SESSIONS_CONFIG_SCHEMA,
  runs: RUNS_CONFIG_SCHEMA,
  workspace: { type: 'string', minLength: 1, description: 'The folder tools act in (default ./workspace).' },
  permissions: permissionsSchema(true),
  telemetry: TELEMETRY_CONFIG_SCHEMA,
  pricing: PRICING_CONFIG_SCHEMA,
  guardrails: {
    ...GUARDRAILS_CONFIG_SCHEMA,
    description:
      "Guardrails of every agent (input, output: before each agent's own) and every tool call (tool).",
  },
  evals: EVALS_CONFIG_SCHEMA,
  context: {
    ...CONTEXT_CONFIG_SCHEMA,
    description:
      "Every agent's default for what the model is sent of a run: compaction near the context window, large tool results (an agent's own context goes over it).",
  },
  modelLimits: MODEL_LIMITS_CONFIG_SCHEMA,
  rateLimits: RATE_LIMITS_CONFIG_SCHEMA,
};

export interface OwnedKey {
  owner: string;
  schema: JSONSchemaObject;
}

/**
 * Validates a config against the core keys plus those plugins own and returns a copy with the
 * schemas' defaults applied. Unknown keys and wrong types fail with CONFIG_INVALID naming each
 * key path, what was expected, and the file.
 */
export function validateConfig<C extends object>(
  config: C,
  owned: ReadonlyMap<string, OwnedKey>,
  file: string | undefined,
): C {
  const properties: Record<string, JSONSchemaObject> = {
    ...CORE_CONFIG_SCHEMA,
    ...Object.fromEntries([...owned].map(([key, o]) => [key, o.schema])),
  };
  // Validate a copy: defaults must not leak into a config object the user still holds.
  const copy = copyData(config) as Record<string, unknown>;
  const errors: ErrorObject[] = [];
  for (const key of Object.keys(copy)) {
    if (!Object.hasOwn(properties, key)) errors.push(unknownKey(key, properties));
  }
  // Each key by its own check: only the keys the config sets, or that bring a default to apply.
  for (const [key, schema] of Object.entries(properties)) {
    if (!Object.hasOwn(copy, key)) {
      if (!('default' in schema)) continue;
      copy[key] = structuredClone(schema.default);
    }
    const check = checkOf(schema);
    const at = {
      instancePath: `/${escapePointer(key)}`,
      parentData: copy,
      parentDataProperty: key,
      rootData: copy,
      dynamicAnchors: {},
    };
    if (!check(copy[key], at)) errors.push(...(check.errors ?? []));
  }
  if (errors.length === 0) return copy as C;
  const known = Object.keys(properties);
  const problems = describeErrors(errors, config).map((line) => {
    const unknown = /^unknown property "([^".[]+)"/.exec(line)?.[1];
    if (!unknown) return line;
    return `unknown key "${unknown}"${didYouMean(unknown, known)}; known keys: ${known.join(', ')}`;
  });
  throw new HubosError(
    'CONFIG_INVALID',
    `invalid config in ${file ?? 'the inline config'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    { details: { file, problems } },
  );
}

/** What ajv reports for a property that `additionalProperties: false` refuses. */
function unknownKey(key: string, properties: Record<string, JSONSchemaObject>): ErrorObject {
  return {
    keyword: 'additionalProperties',
    instancePath: '',
    schemaPath: '#/additionalProperties',
    params: { additionalProperty: key },
    message: 'must NOT have additional properties',
    parentSchema: { type: 'object', properties, additionalProperties: false },
  };
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A key's check: compiled ahead of time for the core's keys and those of the plugins every config
 * has (scripts/config-checks.ts), found by its schema's JSON; else compiled here, once a schema.
 */
const compiled = new WeakMap<object, ValidateFunction>();
function checkOf(schema: JSONSchemaObject): ValidateFunction {
  let check = compiled.get(schema);
  if (!check) {
    check =
      (CONFIG_CHECKS.get(JSON.stringify(schema)) as ValidateFunction | undefined) ??
      configAjv().compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

// One per process, for the schemas of plugins not compiled ahead of time. It does not keep them
// (addUsedSchema: false) and they are the code's own (core's and plugins' configSchema), not
// checked against the meta-schema at each start: compiling that costs more than the config itself.
// Its code runs once, so ajv does not spend a pass optimizing it (about half of compiling).
let sharedAjv: Ajv | undefined;
function configAjv(): Ajv {
  sharedAjv ??= createAjv('draft-07', {
    addUsedSchema: false,
    validateSchema: false,
    code: { optimize: false },
  });
  return sharedAjv;
}

// Configs hold plugin objects and functions, which structuredClone refuses: copy plain data, keep the rest.
function copyData<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyData) as T;
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype)
    return value;
  if (isPluginLike(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyData(v)])) as T;
}

function isPluginLike(value: object): boolean {
  return typeof (value as { apply?: unknown }).apply === 'function';
}
