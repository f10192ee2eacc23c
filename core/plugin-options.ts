import { HubosError } from './errors.ts';
import {
  describeErrors,
  type JSONSchemaObject,
  type ProblemWords,
  SchemaCompilers,
  type ValidateFunction,
} from './json-schema.ts';
import {
  deriveJSONSchema,
  isStandardSchema,
  type StandardSchemaV1,
  type Validation,
  validateStandard,
} from './standard-schema.ts';

/** What a plugin's options may be declared with: JSON Schema, or a Standard Schema (zod, valibot…). */
export type PluginOptionsSchema = JSONSchemaObject | StandardSchemaV1;

const OPTION_WORDS: ProblemWords = {
  whole: 'the options',
  key: 'option',
  keyBeforePath: true,
  suggest: true,
};

// Kept on the factory under a shared symbol: a package built against another copy of hubos is read the same way.
const DECLARED = Symbol.for('hubos.plugin-options');

/**
 * What `definePlugin({ optionsSchema }, factory)` keeps on the factory it returns, so that loading
 * a package by name checks the options (naming the package) and then calls the factory as written.
 * @internal
 */
export interface DeclaredOptions {
  /**
   * The checked options (defaults applied), boxed so that options which are themselves a promise
   * are not mistaken for a pending check; throws, or rejects, with PLUGIN_OPTIONS_INVALID.
   */
  check(options: unknown, plugin: string | undefined): Checked | Promise<Checked>;
  /** The factory as written, given checked options. */
  factory(options: unknown): unknown;
}

/** @internal */
export interface Checked {
  value: unknown;
}

/** What `definePlugin` declared on a factory, if anything. @internal */
export function declaredOptions(value: unknown): DeclaredOptions | undefined {
  if (typeof value !== 'function') return undefined;
  const declared = (value as { [DECLARED]?: DeclaredOptions })[DECLARED];
  return typeof declared?.check === 'function' && typeof declared.factory === 'function'
    ? declared
    : undefined;
}

/**
 * The factory `definePlugin({ name, optionsSchema }, factory)` returns: it checks its options
 * before `factory` runs. Synchronous where the schema answers at once (JSON Schema always does);
 * a Promise of the plugin where it answers asynchronously.
 * @internal
 */
export function withCheckedOptions(
  declaration: { name?: string; optionsSchema: PluginOptionsSchema },
  factory: (options: never) => unknown,
): (options?: unknown) => unknown {
  if (typeof factory !== 'function') {
    throw new HubosError(
      'PLUGIN_INVALID',
      'definePlugin({ optionsSchema }, factory): factory must be a function',
    );
  }
  const name = declaration?.name ?? (factory.name || undefined);
  const check = optionsChecker(declaration?.optionsSchema as PluginOptionsSchema, name);
  const create = factory as (options: unknown) => unknown;
  const defined = (options?: unknown): unknown => {
    const checked = check(options, name);
    if (!(checked instanceof Promise)) return create(checked.value);
    const made = checked.then(({ value }) => create(value));
    made.catch(() => undefined); // rejects for whoever awaits it: not an unhandled rejection meanwhile
    return made;
  };
  const declared: DeclaredOptions = { check, factory: create };
  Object.defineProperty(defined, DECLARED, { value: declared });
  Object.defineProperty(defined, 'name', { value: factory.name });
  return defined;
}

const compilers = new SchemaCompilers();

/** Readies the schema once (a JSON Schema that does not compile is PLUGIN_INVALID at definition). */
function optionsChecker(schema: PluginOptionsSchema, name: string | undefined): DeclaredOptions['check'] {
  if (isStandardSchema(schema)) {
    let derived: { schema: unknown } | undefined;
    return (options, plugin) => {
      derived ??= { schema: derivedFor(schema) };
      const result = validateStandard(schema, options ?? {}, OPTION_WORDS, derived.schema);
      return result instanceof Promise
        ? result.then((r) => optionsOrThrow(r, plugin))
        : optionsOrThrow(result, plugin);
    };
  }
  const validate = compile(schema, name);
  return (options, plugin) => {
    // Defaults go into a copy: the caller's object (maybe shared by two configs) stays as it was.
    const copy = copyData(options ?? {});
    const result: Validation = validate(copy)
      ? { ok: true, value: copy }
      : { ok: false, problems: describeErrors(validate.errors, copy, OPTION_WORDS) };
    return optionsOrThrow(result, plugin);
  };
}

function compile(schema: PluginOptionsSchema, name: string | undefined): ValidateFunction {
  const where = name ? `plugin "${name}"` : 'definePlugin()';
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new HubosError(
      'PLUGIN_INVALID',
      `${where}: optionsSchema must be a JSON Schema object or a Standard Schema (zod, valibot, ArkType…)`,
    );
  }
  const ajv = compilers.for(schema);
  if (!ajv.validateSchema(schema)) {
    throw new HubosError(
      'PLUGIN_INVALID',
      `${where}: optionsSchema is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`,
    );
  }
  return ajv.compile(schema);
}

/** The derived JSON Schema, where there is one, lists the allowed names in "unknown option" messages. */
function derivedFor(schema: StandardSchemaV1): unknown {
  const derived = deriveJSONSchema(schema, 'input');
  return derived.ok ? derived.schema : undefined;
}

function optionsOrThrow(result: Validation, plugin: string | undefined): Checked {
  if (result.ok) return { value: result.value };
  const subject = plugin ? `plugin "${plugin}"` : 'plugin options';
  throw new HubosError('PLUGIN_OPTIONS_INVALID', `${subject}: ${result.problems.join('; ')}`, {
    details: { ...(plugin ? { plugin } : {}), problems: result.problems },
  });
}

/** A copy of plain objects and arrays; anything else (a function, a class instance) kept as it is. */
function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (typeof value !== 'object' || value === null) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyData(item)]));
}
