import type { FromSchema } from 'json-schema-to-ts';
import type { JSONSchemaObject } from './json-schema.ts';
import type { KernelView } from './kernel-view.ts';
import { type PluginOptionsSchema, withCheckedOptions } from './plugin-options.ts';
import type { ServiceName } from './services.ts';
import type { StandardSchemaV1 } from './standard-schema.ts';

export type { PluginOptionsSchema };

export interface Plugin {
  /** Unique among the app's plugins; named in every error the plugin causes. */
  name: string;
  version?: string;
  /** Names of plugins that must be present; they are applied before this one. */
  dependencies?: readonly string[];
  /**
   * Services this plugin provides with `kernel.provide(name, value)` during boot. Declared, a missing
   * one is named at boot and asking for it early says when it comes.
   */
  provides?: readonly ServiceName[];
  /** `pre` plugins are applied first, `post` last, the rest in the order given. */
  enforce?: 'pre' | 'post';
  /** Top-level config keys this plugin owns, with the JSON Schema each must satisfy. */
  configSchema?: Record<string, JSONSchemaObject>;
  /** Taps hooks. Runs once at boot; must return promptly (long work belongs in `ready`). */
  apply(kernel: KernelView): void | Promise<void>;
}

/** A package's default export may be a plugin or a factory of one (called with the options). */
export type PluginFactory<O = never> = (options?: O) => PluginOption | Promise<PluginOption>;

/**
 * What config `plugins` accepts: plugins, falsy entries, nested arrays, string specifiers, and
 * promises of any of them (what a factory with an asynchronous options schema returns).
 */
export type PluginOption =
  | Plugin
  | string
  | readonly [specifier: string, options?: unknown]
  | false
  | null
  | undefined
  | readonly PluginOption[]
  | Promise<PluginOption>;

/** The options a factory receives: the schema's output, defaults applied (and a Standard Schema's transforms). */
export type PluginOptionsOf<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends JSONSchemaObject
    ? FromSchema<S>
    : never;

/** The options its caller passes: the schema's input, where options with a default may be left out. */
export type PluginOptionsInput<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferInput<S>
  : S extends JSONSchemaObject
    ? FromSchema<S, { keepDefaultedPropertiesOptional: true }>
    : never;

/**
 * A factory whose options are checked against its schema before it runs. Its options may be left
 * out when none is required. With a Standard Schema it may return a Promise of the plugin (where
 * the schema validates asynchronously): config `plugins` takes either.
 */
export type CheckedPluginFactory<S, P> = (
  ...options: Record<string, never> extends PluginOptionsInput<S>
    ? [options?: PluginOptionsInput<S>]
    : [options: PluginOptionsInput<S>]
) => S extends StandardSchemaV1 ? P | Promise<Awaited<P>> : P;

/**
 * Declares a plugin, or a plugin factory, with types:
 * `export default definePlugin((options: { units?: 'metric' } = {}) => ({ name: 'weather', apply(kernel) {} }))`.
 *
 * Given an options schema first (JSON Schema or a Standard Schema such as zod's), the factory's
 * options are typed from it and checked before it runs, by name from the config (`['pkg', options]`)
 * or called directly (`weather({ units: 'metric' })`): bad options are PLUGIN_OPTIONS_INVALID naming
 * the plugin, the option, what was expected and what was given; defaults are applied.
 * `definePlugin({ name: 'weather', optionsSchema: z.strictObject({ units: z.enum(['metric', 'imperial']).default('metric') }) }, (options) => ({ name: 'weather', apply(kernel) {} }))`.
 */
export function definePlugin<const S extends PluginOptionsSchema, P extends PluginOption>(
  declaration: {
    /** Named in errors about the options when the factory is called directly (by name, the config's specifier is). */
    name?: string;
    optionsSchema: S;
  },
  factory: (options: PluginOptionsOf<S>) => P,
): CheckedPluginFactory<S, P>;
export function definePlugin<P extends Plugin>(plugin: P): P;
export function definePlugin<A extends unknown[], P extends PluginOption>(
  factory: (...args: A) => P,
): (...args: A) => P;
export function definePlugin(value: unknown, factory?: (options: never) => unknown): unknown {
  if (factory === undefined) return value;
  return withCheckedOptions(value as { name?: string; optionsSchema: PluginOptionsSchema }, factory);
}

/** True for an object shaped like a Plugin (duck-typed, so plugins built against another copy of hubos pass). */
export function isPlugin(value: unknown): value is Plugin {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Plugin).name === 'string' &&
    typeof (value as Plugin).apply === 'function'
  );
}

/** Why `value` is not a plugin, in words that tell how to fix it. */
export function describeNotPlugin(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `got ${value === null ? 'null' : typeof value}`;
  const { name, apply } = value as Partial<Plugin>;
  if (typeof name !== 'string' || name === '') return 'it has no "name" string';
  if (typeof apply !== 'function') return `plugin "${name}" has no apply(kernel) function`;
  return 'unknown shape';
}
