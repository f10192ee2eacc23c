import type { HubosConfig } from './config.ts';
import type { TapOnlyHooks } from './hook-utils.ts';
import type { KernelHooks } from './hooks.ts';
import type { Logger } from './logger.ts';
import type { ModelRegistry } from './model/registry.ts';
import type { Registry } from './tools/registry.ts';

/** Links a plugin's view to its kernel, for hook accessors keyed by kernel. */
export const KERNEL_OF = Symbol.for('hubos.kernel-of');
export const PLUGIN_OF = Symbol.for('hubos.plugin-of');

/** What a plugin's `apply(kernel)` receives: the kernel, with tap-only hooks attributed to the plugin. */
export interface KernelView {
  readonly hooks: TapOnlyHooks<KernelHooks>;
  readonly registry: Registry;
  readonly models: ModelRegistry;
  /** The config as loaded (before the `config` hook runs; resolved after it). */
  readonly config: HubosConfig;
  readonly configFile: string | undefined;
  readonly cwd: string;
  readonly mode: string;
  readonly command: string;
  readonly logger: Logger;
  readonly [KERNEL_OF]: object;
  readonly [PLUGIN_OF]?: string;
}
