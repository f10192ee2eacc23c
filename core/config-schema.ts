import { SESSIONS_CONFIG_SCHEMA } from './agent/sessions.ts';
import { AGENT_TEMPLATE_SCHEMA } from './agent/spec.ts';
import { BUS_CONFIG_SCHEMA } from './bus/open-bus.ts';
import { closestName } from './closest-name.ts';
import { HubosError } from './errors.ts';
import { createAjv, describeErrors, type JSONSchemaObject } from './json-schema.ts';
import { permissionsSchema } from './permissions.ts';
import { STORE_CONFIG_SCHEMA } from './store/open-store.ts';

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
    anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }],
    description: "The default model of agents: a reference, e.g. 'openai:gpt-4.1-mini', or a model object.",
  },
  store: STORE_CONFIG_SCHEMA,
  bus: BUS_CONFIG_SCHEMA,
  sessions: SESSIONS_CONFIG_SCHEMA,
  workspace: { type: 'string', minLength: 1, description: 'The folder tools act in (default ./workspace).' },
  permissions: permissionsSchema(true),
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
  const properties = {
    ...CORE_CONFIG_SCHEMA,
    ...Object.fromEntries([...owned].map(([key, o]) => [key, o.schema])),
  };
  const validate = createAjv().compile({ type: 'object', properties, additionalProperties: false });
  // Validate a copy: defaults must not leak into a config object the user still holds.
  const copy = copyData(config);
  if (validate(copy)) return copy;
  const known = Object.keys(properties);
  const problems = describeErrors(validate.errors, config).map((line) => {
    const unknown = /^unknown property "([^".[]+)"/.exec(line)?.[1];
    if (!unknown) return line;
    const guess = closestName(unknown, known);
    return `unknown key "${unknown}"${guess ? ` (did you mean "${guess}"?)` : ''}; known keys: ${known.join(', ')}`;
  });
  throw new HubosError(
    'CONFIG_INVALID',
    `invalid config in ${file ?? 'the inline config'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    { details: { file, problems } },
  );
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
