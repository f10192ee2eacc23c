import { dirname } from 'node:path';
import { type ConfigExport, type HubosConfig, resolveConfigExport } from './config.ts';
import { type OwnedKey, validateConfig } from './config-schema.ts';
import { errorMessage, HubosError } from './errors.ts';
import { REGISTER_OWNED_HOOKS } from './hook-owner.ts';
import { type TappableHook, tapViews, traceHooks } from './hook-utils.ts';
import { createKernelHooks, type KernelHooks } from './hooks.ts';
import { KERNEL_OF, type KernelView, PLUGIN_OF } from './kernel-view.ts';
import { createConsoleLogger, type Logger } from './logger.ts';
import { ModelRegistry } from './model/registry.ts';
import type { Plugin, PluginOption } from './plugin.ts';
import { orderPlugins } from './plugin-order.ts';
import { resolvePlugins } from './plugin-resolve.ts';
import { Registry } from './tools/registry.ts';

export interface KernelOptions {
  /** The config: an object, a promise, or a function of `{ mode, command }` (see `loadConfigFile`). */
  config?: ConfigExport;
  /** Where the config came from: named in errors; string plugin specifiers resolve from its folder. */
  configFile?: string;
  cwd?: string;
  /** Passed to config functions; defaults to NODE_ENV or 'development'. */
  mode?: string;
  command?: string;
  /** Plugins applied with the config's (e.g. the built-in defaults). */
  plugins?: PluginOption[];
  /** How long one plugin's apply() may take. */
  pluginTimeoutMs?: number;
  logger?: Logger;
}

export interface KernelInspection {
  plugins: { name: string; version?: string; enforce?: 'pre' | 'post'; dependencies: string[] }[];
  /** Per hook (`owner.hook` for plugin-owned ones), its taps in call order. */
  hooks: Record<string, { name: string; plugin?: string; type: string; stage: number }[]>;
}

type State = 'created' | 'booting' | 'ready' | 'failed' | 'closing' | 'closed';

/** The kernel: loads plugins, resolves config, owns the tool registry; knows nothing of HTTP or teams. */
export class Kernel {
  readonly hooks: KernelHooks = createKernelHooks();
  readonly registry = new Registry();
  readonly models = new ModelRegistry();
  readonly cwd: string;
  readonly mode: string;
  readonly command: string;
  readonly logger: Logger;
  readonly configFile: string | undefined;
  readonly [KERNEL_OF]: object = this;
  #config: HubosConfig = {};
  #state: State = 'created';
  #plugins: Plugin[] = [];
  #closing: Promise<void> | undefined;
  readonly #extra: PluginOption[];
  readonly #options: KernelOptions;
  readonly #owned = new Map<string, Record<string, TappableHook>>();

  constructor(options: KernelOptions = {}) {
    this.#options = options;
    this.cwd = options.cwd ?? process.cwd();
    this.mode = options.mode ?? process.env.NODE_ENV ?? 'development';
    this.command = options.command ?? 'run';
    this.logger = options.logger ?? createConsoleLogger();
    this.configFile = options.configFile;
    this.#extra = [...(options.plugins ?? [])];
    if (process.env.HUBOS_TRACE_HOOKS) traceHooks(this.hooks, (line) => this.logger.info(line));
  }

  /** The config: as given until boot, resolved (hooks run, defaults applied, validated) after. */
  get config(): HubosConfig {
    return this.#config;
  }

  get state(): State {
    return this.#state;
  }

  get plugins(): readonly Plugin[] {
    return this.#plugins;
  }

  /** Adds plugins before boot. */
  use(...plugins: PluginOption[]): this {
    if (this.#state !== 'created') {
      throw new HubosError(
        'KERNEL_STATE',
        `kernel.use() must be called before boot() (the kernel is ${this.#state})`,
      );
    }
    this.#extra.push(...plugins);
    return this;
  }

  /**
   * Loads and applies plugins, resolves and validates the config, registers models and tools,
   * then fires `ready`. On failure the kernel closes what the plugins opened and rethrows.
   */
  async boot(): Promise<this> {
    if (this.#state !== 'created') {
      throw new HubosError('KERNEL_STATE', `kernel.boot() can run once (the kernel is ${this.#state})`);
    }
    this.#state = 'booting';
    try {
      await this.#boot();
      this.#state = 'ready';
      return this;
    } catch (error) {
      this.#state = 'failed';
      await this.#runClose('boot-failed').catch((closeError) => this.logger.warn(errorMessage(closeError)));
      throw error;
    }
  }

  async #boot(): Promise<void> {
    const env = { mode: this.mode, command: this.command };
    const loaded = await resolveConfigExport(this.#options.config ?? {}, env, this.configFile);
    // Plugins own the other keys, so a bad `plugins` is reported with what the core alone can check.
    if (loaded.plugins !== undefined && !Array.isArray(loaded.plugins)) {
      validateConfig(loaded, new Map(), this.configFile);
    }
    this.#config = loaded;
    const baseDir = this.configFile ? dirname(this.configFile) : this.cwd;
    const resolved = await resolvePlugins([...this.#extra, ...(loaded.plugins ?? [])], baseDir);
    this.#plugins = orderPlugins(resolved);
    const owned = this.#ownedConfigKeys();
    for (const plugin of this.#plugins) await this.#apply(plugin);
    await this.hooks.pluginsApplied.promise({ plugins: this.#plugins });

    const config = (await this.hooks.config.promise(this.#config)) ?? this.#config;
    this.#config = validateConfig(config, owned, this.configFile);
    await this.hooks.configResolved.promise({ config: this.#config, configFile: this.configFile });
    await this.hooks.registerModels.promise(this.models);
    await this.hooks.registerTools.promise(this.registry);
    for (const tool of this.registry.list()) await this.hooks.toolRegistered.promise({ tool });
    this.registry.onRegister((tool) => {
      this.hooks.toolRegistered.promise({ tool }).catch((error) => this.logger.error(errorMessage(error)));
    });
    await this.hooks.ready.promise({ config: this.#config });
  }

  #ownedConfigKeys(): Map<string, OwnedKey> {
    const owned = new Map<string, OwnedKey>();
    for (const plugin of this.#plugins) {
      for (const [key, schema] of Object.entries(plugin.configSchema ?? {})) {
        const other = owned.get(key);
        if (other || key === 'plugins') {
          throw new HubosError(
            'PLUGIN_INVALID',
            `plugin "${plugin.name}" declares config key "${key}", which ${other ? `plugin "${other.owner}"` : 'the kernel'} already owns`,
            { details: { plugin: plugin.name } },
          );
        }
        owned.set(key, { owner: plugin.name, schema });
      }
    }
    return owned;
  }

  async #apply(plugin: Plugin): Promise<void> {
    const timeoutMs = this.#options.pluginTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new HubosError(
            'PLUGIN_APPLY_TIMEOUT',
            `plugin "${plugin.name}" did not finish apply() within ${timeoutMs} ms: apply() must only tap hooks; start long work in the "ready" hook`,
            { details: { plugin: plugin.name } },
          ),
        );
      }, timeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(() => plugin.apply(this.#viewFor(plugin))), timeout]);
    } catch (error) {
      if (HubosError.is(error, 'PLUGIN_APPLY_TIMEOUT') || (HubosError.is(error) && error.details.plugin))
        throw error;
      throw new HubosError(
        'PLUGIN_APPLY_FAILED',
        `plugin "${plugin.name}" failed in apply(): ${errorMessage(error)}`,
        {
          cause: error,
          details: { plugin: plugin.name },
        },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  #viewFor(plugin: Plugin): KernelView {
    const kernel = this;
    return Object.freeze({
      hooks: tapViews(this.hooks, plugin.name),
      registry: this.registry,
      models: this.models,
      get config() {
        return kernel.config;
      },
      configFile: this.configFile,
      cwd: this.cwd,
      mode: this.mode,
      command: this.command,
      logger: this.logger,
      [KERNEL_OF]: this,
      [PLUGIN_OF]: plugin.name,
    });
  }

  [REGISTER_OWNED_HOOKS](owner: string, hooks: Record<string, TappableHook>): void {
    this.#owned.set(owner, hooks);
  }

  /** Plugins in apply order and, per hook, its taps in call order. */
  inspect(): KernelInspection {
    const hooks: KernelInspection['hooks'] = {};
    const list = (name: string, hook: TappableHook) => {
      hooks[name] = hook.taps.map((tap) => ({
        name: tap.name,
        ...(tap.plugin === undefined ? {} : { plugin: tap.plugin }),
        type: tap.type,
        stage: tap.stage ?? 0,
      }));
    };
    for (const [name, hook] of Object.entries(this.hooks)) list(name, hook);
    for (const [owner, catalog] of this.#owned)
      for (const [name, hook] of Object.entries(catalog)) list(`${owner}.${name}`, hook);
    return {
      plugins: this.#plugins.map((p) => ({
        name: p.name,
        ...(p.version === undefined ? {} : { version: p.version }),
        ...(p.enforce === undefined ? {} : { enforce: p.enforce }),
        dependencies: [...(p.dependencies ?? [])],
      })),
      hooks,
    };
  }

  /**
   * Fires `beforeClose` then `close`, once: every call returns the same promise, so a second caller
   * waits for the first to finish. After a failed boot (which already ran them) it only marks the kernel closed.
   */
  close(reason = 'close'): Promise<void> {
    this.#closing ??= this.#close(reason);
    return this.#closing;
  }

  async #close(reason: string): Promise<void> {
    const bootFailed = this.#state === 'failed';
    this.#state = 'closing';
    try {
      if (!bootFailed) await this.#runClose(reason);
    } finally {
      this.#state = 'closed';
    }
  }

  async #runClose(reason: string): Promise<void> {
    await this.hooks.beforeClose.promise({ reason });
    await this.hooks.close.promise({ reason });
  }
}

export function createKernel(options: KernelOptions = {}): Kernel {
  return new Kernel(options);
}
