import { HubosError } from './errors.ts';
import type { HubosConfig } from './index.ts';
import { describeValue } from './json-schema.ts';

/** What a config function is told: `mode` (e.g. development, production, test) and the CLI command. */
export interface ConfigEnv {
  mode: string;
  command: string;
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
