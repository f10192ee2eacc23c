import type { JSONSchemaObject } from './json-schema.ts';
import type { KernelView } from './kernel-view.ts';
import type { ServiceName } from './services.ts';

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

/** What config `plugins` accepts: plugins, falsy entries, nested arrays and string specifiers. */
export type PluginOption =
  | Plugin
  | string
  | readonly [specifier: string, options?: unknown]
  | false
  | null
  | undefined
  | readonly PluginOption[];

/**
 * Declares a plugin, or a plugin factory, with types:
 * `export default definePlugin((options: { units?: 'metric' } = {}) => ({ name: 'weather', apply(kernel) {} }))`.
 */
export function definePlugin<P extends Plugin>(plugin: P): P;
export function definePlugin<A extends unknown[], P extends PluginOption>(
  factory: (...args: A) => P,
): (...args: A) => P;
export function definePlugin(value: unknown): unknown {
  return value;
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
