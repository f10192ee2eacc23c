import type { SessionsConfig } from './agent/sessions.ts';
import type { AgentTemplate } from './agent/spec.ts';
import type { BusConfig } from './bus/open-bus.ts';
import { HubosError } from './errors.ts';
import { describeValue } from './json-schema.ts';
import type { ModelObject } from './model/model.ts';
import type { PermissionsConfig } from './permissions.ts';
import type { PluginOption } from './plugin.ts';
import type { StoreConfig } from './store/open-store.ts';

/** What a config function is told: `mode` (e.g. development, production, test) and the CLI command. */
export interface ConfigEnv {
  mode: string;
  command: string;
}

/**
 * The app's configuration. Plugins that own more keys declare them with `configSchema` and
 * add their types with `declare module 'hubos' { interface HubosConfig { ... } }`.
 */
export interface HubosConfig {
  /** Plugin objects, falsy entries, nested arrays, and `'pkg'` / `'./file.ts'` / `['pkg', options]` specifiers. */
  plugins?: PluginOption[];
  /** Agent templates by name; each is created at boot under its name. */
  agents?: Record<string, AgentTemplate>;
  /** The model of agents that name none: a reference (`'openai:gpt-4.1-mini'`), or a model object (a `LanguageModel`, an AI SDK model). */
  model?: string | ModelObject;
  /** Where sessions and plugin data live (default: SQLite at `.hubos/hubos.db`). */
  store?: StoreConfig;
  /** How instances of one service coordinate (default: in-process; `redis` joins several). */
  bus?: BusConfig;
  sessions?: SessionsConfig;
  /** The folder tools act in, relative to the config file (default `./workspace`). */
  workspace?: string;
  /**
   * Which tool calls run, wait for a human approval, or are refused: glob patterns over tool
   * permissions and names, `deny` > `ask` > `allow`; nothing matching allows. An agent template's
   * own `permissions` are checked first.
   */
  permissions?: PermissionsConfig;
}

export type ConfigExport =
  | HubosConfig
  | Promise<HubosConfig>
  | ((env: ConfigEnv) => HubosConfig | Promise<HubosConfig>);

/** Types a config: an object, a promise of one, or a function of `{ mode, command }`. */
export function defineConfig<const T extends ConfigExport>(config: T): T {
  return config;
}

/**
 * Calls/awaits a config export and checks it is an object.
 * @internal
 */
export async function resolveConfigExport(
  exported: unknown,
  env: ConfigEnv,
  file: string | undefined,
): Promise<HubosConfig> {
  const where = file ?? 'the config';
  const value = typeof exported === 'function' ? await exported(env) : await exported;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HubosError(
      'CONFIG_INVALID',
      `${where} must export an object (export default defineConfig({ ... })), got ${describeValue(value)}`,
      { details: { file } },
    );
  }
  return value as HubosConfig;
}
