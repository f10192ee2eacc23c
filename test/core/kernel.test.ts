import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createKernel,
  defineTool,
  type HubosConfig,
  HubosError,
  type Kernel,
  type KernelOptions,
  type KernelView,
  type Logger,
  loadConfigFile,
  type Plugin,
  silentLogger,
} from '../../core/index.ts';
import { expectHubosError, expectHubosRejection } from './helpers.ts';

const pluginsDir = fileURLToPath(new URL('../fixtures/plugins/', import.meta.url));
const fixtureApp = fileURLToPath(new URL('../fixtures/config/app/', import.meta.url));

afterEach(() => {
  vi.unstubAllEnvs();
});

function kernelWith(plugins: Plugin[] = [], options: KernelOptions = {}): Kernel {
  return createKernel({ logger: silentLogger, mode: 'test', command: 'run', plugins, ...options });
}

function plugin(name: string, apply: Plugin['apply'] = () => {}, extra: Partial<Plugin> = {}): Plugin {
  return { name, apply, ...extra };
}

const echoTool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: {} },
    handler: () => name,
  });

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    debug: (m) => lines.push(`debug: ${m}`),
    info: (m) => lines.push(`info: ${m}`),
    warn: (m) => lines.push(`warn: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
  };
}

describe('Kernel: boot', () => {
  it('applies plugins, then runs the boot hooks in order, then is ready', async () => {
    const log: string[] = [];
    const recorder = plugin('recorder', (kernel) => {
      log.push('apply');
      const { hooks } = kernel;
      hooks.pluginsApplied.tap('r', () => void log.push('pluginsApplied'));
      hooks.config.tap('r', (config) => {
        log.push('config');
        return config;
      });
      hooks.configResolved.tap('r', () => void log.push('configResolved'));
      hooks.registerModels.tap('r', () => void log.push('registerModels'));
      hooks.registerTools.tap('r', (registry) => {
        log.push('registerTools');
        registry.register(echoTool('recorded'));
      });
      hooks.toolRegistered.tap('r', ({ tool }) => void log.push(`toolRegistered:${tool.name}`));
      hooks.ready.tap('r', () => void log.push('ready'));
      hooks.beforeClose.tap('r', () => void log.push('beforeClose'));
      hooks.close.tap('r', () => void log.push('close'));
    });
    const kernel = kernelWith([recorder]);
    expect(kernel.state).toBe('created');
    expect(await kernel.boot()).toBe(kernel);
    expect(kernel.state).toBe('ready');
    expect(log).toEqual([
      'apply',
      'pluginsApplied',
      'config',
      'configResolved',
      'registerModels',
      'registerTools',
      'toolRegistered:recorded',
      'ready',
    ]);
    await kernel.close();
    expect(log.slice(-2)).toEqual(['beforeClose', 'close']);
    expect(kernel.state).toBe('closed');
  });

  it('applies plugins in the given order: kernel options, then use(), then config plugins', async () => {
    const applied: string[] = [];
    const make = (name: string) => plugin(name, () => void applied.push(name));
    const kernel = kernelWith([make('from-options')], { config: { plugins: [make('from-config')] } });
    kernel.use(make('from-use'), [make('from-use-nested')]);
    await kernel.boot();
    expect(applied).toEqual(['from-options', 'from-use', 'from-use-nested', 'from-config']);
    expect(kernel.plugins.map((p) => p.name)).toEqual(applied);
  });

  it('use() is chainable and skips falsy entries', async () => {
    const kernel = kernelWith();
    expect(kernel.use(false, null, plugin('a'))).toBe(kernel);
    await kernel.boot();
    expect(kernel.plugins.map((p) => p.name)).toEqual(['a']);
  });

  it('boots with no plugins and no config', async () => {
    const kernel = await kernelWith().boot();
    expect(kernel.config).toEqual({});
    expect(kernel.registry.list()).toEqual([]);
  });

  it('tells pluginsApplied the plugins in apply order', async () => {
    let seen: string[] = [];
    const watcher = plugin('watcher', (k) =>
      k.hooks.pluginsApplied.tap('w', ({ plugins }) => {
        seen = plugins.map((p) => p.name);
      }),
    );
    await kernelWith([plugin('late', undefined, { enforce: 'post' }), watcher]).boot();
    expect(seen).toEqual(['watcher', 'late']);
  });

  it('orders enforce "pre" first and "post" last, and taps follow that order', async () => {
    const ran: string[] = [];
    const make = (name: string, enforce?: 'pre' | 'post') =>
      plugin(name, (k) => k.hooks.ready.tap(name, () => void ran.push(name)), enforce ? { enforce } : {});
    const kernel = kernelWith([make('post', 'post'), make('normal'), make('pre', 'pre')]);
    await kernel.boot();
    expect(kernel.plugins.map((p) => p.name)).toEqual(['pre', 'normal', 'post']);
    expect(ran).toEqual(['pre', 'normal', 'post']);
  });

  it('applies a plugin after its dependencies', async () => {
    const applied: string[] = [];
    const make = (name: string, dependencies?: string[]) =>
      plugin(name, () => void applied.push(name), dependencies ? { dependencies } : {});
    await kernelWith([make('app', ['store']), make('store')]).boot();
    expect(applied).toEqual(['store', 'app']);
  });

  it('a duplicate plugin name fails boot with PLUGIN_DUPLICATE naming it', async () => {
    const kernel = kernelWith([plugin('weather')], { config: { plugins: [plugin('weather')] } });
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_DUPLICATE');
    expect(error.message).toContain('plugin "weather" is listed twice');
    expect(kernel.state).toBe('failed');
  });

  it('a missing dependency fails boot with PLUGIN_DEPENDENCY_MISSING naming both plugins', async () => {
    const kernel = kernelWith([plugin('cosmos', undefined, { dependencies: ['hubos'] })]);
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_DEPENDENCY_MISSING');
    expect(error.message).toContain('plugin "cosmos" depends on "hubos"');
  });

  it('a dependency cycle fails boot with PLUGIN_DEPENDENCY_CYCLE showing it', async () => {
    const kernel = kernelWith([
      plugin('a', undefined, { dependencies: ['b'] }),
      plugin('b', undefined, { dependencies: ['a'] }),
    ]);
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_DEPENDENCY_CYCLE');
    expect(error.message).toContain('a -> b -> a');
  });

  it('an invalid plugin entry fails boot with PLUGIN_INVALID', async () => {
    const kernel = kernelWith([{ name: 'no-apply' } as unknown as Plugin]);
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_INVALID');
    expect(error.message).toContain('plugin "no-apply" has no apply(kernel) function');
  });
});

describe('Kernel: plugin apply()', () => {
  it('an apply() that throws fails boot with PLUGIN_APPLY_FAILED naming the plugin, and later plugins are not applied', async () => {
    const later = vi.fn();
    const cause = new Error('missing API key');
    const kernel = kernelWith([
      plugin('broken', () => {
        throw cause;
      }),
      plugin('later', later),
    ]);
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_APPLY_FAILED');
    expect(error.message).toBe('plugin "broken" failed in apply(): missing API key');
    expect(error.details.plugin).toBe('broken');
    expect(error.cause).toBe(cause);
    expect(later).not.toHaveBeenCalled();
  });

  it('an async apply() that rejects fails the same way', async () => {
    const kernel = kernelWith([
      plugin('async-broken', async () => {
        await Promise.resolve();
        throw new Error('late failure');
      }),
    ]);
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_APPLY_FAILED');
    expect(error.message).toBe('plugin "async-broken" failed in apply(): late failure');
  });

  it('a HubosError from apply() (e.g. a bad tool) is still blamed on the plugin', async () => {
    const kernel = kernelWith([
      plugin('bad-tools', (k) => {
        k.registry.register(echoTool('has space'));
      }),
    ]);
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_APPLY_FAILED');
    expect(error.message).toContain('plugin "bad-tools" failed in apply(): tool "has space": name must be');
    expect(HubosError.is(error.cause, 'TOOL_INVALID')).toBe(true);
  });

  it('an apply() that hangs past pluginTimeoutMs fails boot with PLUGIN_APPLY_TIMEOUT naming the plugin', async () => {
    const kernel = kernelWith([plugin('slow', () => new Promise<void>(() => {}))], { pluginTimeoutMs: 50 });
    const started = Date.now();
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_APPLY_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.message).toContain('plugin "slow" did not finish apply() within 50 ms');
    expect(error.message).toContain('"ready" hook');
    expect(error.details.plugin).toBe('slow');
  });

  it('an apply() that finishes within pluginTimeoutMs is fine', async () => {
    const kernel = kernelWith([plugin('quick', () => new Promise<void>((r) => setTimeout(r, 10)))], {
      pluginTimeoutMs: 1_000,
    });
    await kernel.boot();
    expect(kernel.state).toBe('ready');
  });

  it('gives apply() a frozen view: tap-only hooks, the registries, config and run facts', async () => {
    let view: KernelView | undefined;
    const viewer = plugin('viewer', (k) => {
      view = k;
    });
    const kernel = kernelWith([viewer], {
      config: { plugins: [] },
      configFile: '/somewhere/agent.config.ts',
      cwd: '/somewhere',
      mode: 'production',
      command: 'serve',
    });
    await kernel.boot();
    expect(view).toBeDefined();
    const v = view!;
    expect(Object.isFrozen(v)).toBe(true);
    expect(Object.keys(v.hooks.ready).sort()).toEqual(['tap', 'tapPromise']);
    expect('promise' in v.hooks.ready).toBe(false);
    expect(v.registry).toBe(kernel.registry);
    expect(v.models).toBe(kernel.models);
    expect(v.config).toBe(kernel.config);
    expect({ file: v.configFile, cwd: v.cwd, mode: v.mode, command: v.command }).toEqual({
      file: '/somewhere/agent.config.ts',
      cwd: '/somewhere',
      mode: 'production',
      command: 'serve',
    });
  });

  it('attributes taps made through the view to the plugin', async () => {
    const kernel = kernelWith([plugin('attributed', (k) => k.hooks.ready.tap('my-tap', () => {}))]);
    await kernel.boot();
    expect(kernel.inspect().hooks.ready).toEqual([
      { name: 'my-tap', plugin: 'attributed', type: 'sync', stage: 0 },
    ]);
  });

  it('use() from inside apply() is refused with KERNEL_STATE', async () => {
    const kernel = kernelWith();
    kernel.use(
      plugin('sneaky', () => {
        kernel.use(plugin('late'));
      }),
    );
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_APPLY_FAILED');
    expect(HubosError.is(error.cause, 'KERNEL_STATE')).toBe(true);
  });
});

describe('Kernel: failing taps', () => {
  it('a failing ready tap fails boot naming the plugin and the hook', async () => {
    const kernel = kernelWith([
      plugin('server', (k) =>
        k.hooks.ready.tapPromise('listen', async () => {
          throw new Error('EADDRINUSE');
        }),
      ),
    ]);
    const error = await expectHubosRejection(kernel.boot(), 'HOOK_FAILED');
    expect(error.message).toBe('plugin "server" failed in hook "ready": EADDRINUSE');
    expect(error.details).toEqual({ plugin: 'server', hook: 'ready' });
  });

  it('a duplicate tool in registerTools keeps TOOL_DUPLICATE and names the plugin and hook', async () => {
    const kernel = kernelWith([
      plugin('first', (k) => k.hooks.registerTools.tap('first', (r) => r.register(echoTool('search')))),
      plugin('second', (k) => k.hooks.registerTools.tap('second', (r) => r.register(echoTool('search')))),
    ]);
    const error = await expectHubosRejection(kernel.boot(), 'TOOL_DUPLICATE');
    expect(error.message).toContain('plugin "second" failed in hook "registerTools"');
    expect(error.details).toMatchObject({ plugin: 'second', hook: 'registerTools', tool: 'search' });
  });
});

describe('Kernel: tools and models', () => {
  it('the registerTools hook gets the registry; toolRegistered fires for each tool in order', async () => {
    const announced: string[] = [];
    const kernel = kernelWith([
      plugin('announcer', (k) =>
        k.hooks.toolRegistered.tap('a', ({ tool }) => void announced.push(tool.name)),
      ),
      plugin('tools', (k) =>
        k.hooks.registerTools.tap('tools', (registry) => {
          expect(registry).toBe(k.registry);
          registry.registerBatch([echoTool('one'), echoTool('two')]);
        }),
      ),
      plugin('early-tools', (k) => k.registry.register(echoTool('zero')), { enforce: 'pre' }),
    ]);
    await kernel.boot();
    expect(kernel.registry.list().map((t) => t.name)).toEqual(['zero', 'one', 'two']);
    expect(announced).toEqual(['zero', 'one', 'two']);
  });

  it('toolRegistered also fires for tools registered after boot', async () => {
    const announced: string[] = [];
    const kernel = kernelWith([
      plugin('announcer', (k) =>
        k.hooks.toolRegistered.tap('a', ({ tool }) => void announced.push(tool.name)),
      ),
    ]);
    await kernel.boot();
    kernel.registry.register(echoTool('later'));
    await vi.waitFor(() => expect(announced).toEqual(['later']));
  });

  it('a failing toolRegistered tap after boot is logged, not thrown at the registering code', async () => {
    const logger = recordingLogger();
    const kernel = kernelWith(
      [
        plugin('picky', (k) =>
          k.hooks.toolRegistered.tap('p', () => {
            throw new Error('not this one');
          }),
        ),
      ],
      { logger },
    );
    await kernel.boot();
    expect(() => kernel.registry.register(echoTool('late'))).not.toThrow();
    await vi.waitFor(() =>
      expect(logger.lines).toContain('error: plugin "picky" failed in hook "toolRegistered": not this one'),
    );
  });

  it('the registerModels hook gets the model registry', async () => {
    const kernel = kernelWith([
      plugin('models', (k) =>
        k.hooks.registerModels.tap('models', (models) =>
          models.register({
            id: 'offline',
            description: 'fake',
            languageModel: () => ({ provider: 'offline', modelId: '', stream: async function* () {} }),
          }),
        ),
      ),
    ]);
    await kernel.boot();
    expect(kernel.models.get('offline')).toMatchObject({ id: 'offline', description: 'fake' });
  });
});

describe('Kernel: config', () => {
  it('calls a config function with { mode, command }', async () => {
    const fn = vi.fn(() => ({}));
    await kernelWith([], { config: fn, mode: 'production', command: 'serve' }).boot();
    expect(fn).toHaveBeenCalledWith({ mode: 'production', command: 'serve' });
  });

  it('awaits a config promise', async () => {
    const kernel = kernelWith([], { config: Promise.resolve({ plugins: [plugin('from-promise')] }) });
    await kernel.boot();
    expect(kernel.plugins.map((p) => p.name)).toEqual(['from-promise']);
  });

  it('defaults mode to NODE_ENV, then "development", and command to "run"', () => {
    vi.stubEnv('NODE_ENV', 'staging');
    expect(createKernel({ logger: silentLogger }).mode).toBe('staging');
    vi.stubEnv('NODE_ENV', undefined);
    const kernel = createKernel({ logger: silentLogger });
    expect(kernel.mode).toBe('development');
    expect(kernel.command).toBe('run');
  });

  it('runs the config hook as a waterfall: each tap sees the previous result, undefined keeps it', async () => {
    const seenByLast: unknown[] = [];
    const owner: Plugin = {
      name: 'limits',
      configSchema: { limits: { type: 'object', properties: { maxSteps: { type: 'integer' } } } },
      apply(k) {
        k.hooks.config.tap('set', (config) => ({ ...config, limits: { maxSteps: 5 } }) as HubosConfig);
        k.hooks.config.tap('keep', () => undefined as unknown as HubosConfig);
        k.hooks.config.tapPromise('double', async (config) => {
          const limits = (config as { limits: { maxSteps: number } }).limits;
          return { ...config, limits: { maxSteps: limits.maxSteps * 2 } } as HubosConfig;
        });
        k.hooks.config.tap('last', (config) => {
          seenByLast.push(config);
          return config;
        });
      },
    };
    const kernel = kernelWith([owner], { config: { plugins: [] } });
    await kernel.boot();
    expect(seenByLast).toEqual([{ plugins: [], limits: { maxSteps: 10 } }]);
    expect(kernel.config).toEqual({ plugins: [], limits: { maxSteps: 10 } });
  });

  it('the view shows the loaded config during apply() and the resolved one afterwards', async () => {
    let duringApply: unknown;
    let view: KernelView | undefined;
    const owner: Plugin = {
      name: 'weather',
      configSchema: {
        weather: { type: 'object', properties: { units: { type: 'string', default: 'metric' } } },
      },
      apply(k) {
        view = k;
        duringApply = structuredClone({ weather: (k.config as { weather?: unknown }).weather });
      },
    };
    await kernelWith([owner], { config: { weather: {} } as HubosConfig }).boot();
    expect(duringApply).toEqual({ weather: {} });
    expect((view!.config as { weather?: unknown }).weather).toEqual({ units: 'metric' });
  });

  it('configResolved and ready get the validated config with plugin schema defaults applied', async () => {
    const seen: unknown[] = [];
    const given = { weather: { apiKey: 'k' } } as HubosConfig;
    const owner: Plugin = {
      name: 'weather',
      configSchema: {
        weather: {
          type: 'object',
          properties: {
            apiKey: { type: 'string' },
            units: { enum: ['metric', 'imperial'], default: 'metric' },
          },
          additionalProperties: false,
        },
      },
      apply(k) {
        k.hooks.configResolved.tap('w', ({ config, configFile }) => void seen.push(config, configFile));
        k.hooks.ready.tap('w', ({ config }) => void seen.push(config));
      },
    };
    const kernel = kernelWith([owner], { config: given, configFile: '/app/agent.config.ts' });
    await kernel.boot();
    const resolved = { weather: { apiKey: 'k', units: 'metric' } };
    expect(seen).toEqual([resolved, '/app/agent.config.ts', resolved]);
    expect(kernel.config).toEqual(resolved);
    expect(given).toEqual({ weather: { apiKey: 'k' } });
  });

  it('an unknown config key fails boot with CONFIG_INVALID naming the key, a suggestion and the file', async () => {
    const owner: Plugin = { name: 'weather', configSchema: { weather: { type: 'object' } }, apply() {} };
    const kernel = kernelWith([owner], {
      config: { wether: {} } as HubosConfig,
      configFile: '/app/agent.config.ts',
    });
    const error = await expectHubosRejection(kernel.boot(), 'CONFIG_INVALID');
    expect(error.message).toContain('invalid config in /app/agent.config.ts');
    expect(error.message).toContain('unknown key "wether" (did you mean "weather"?)');
  });

  it('a plugin-owned key of the wrong type fails boot naming the key path, expected and given value', async () => {
    const owner: Plugin = {
      name: 'server',
      configSchema: { server: { type: 'object', properties: { port: { type: 'integer' } } } },
      apply() {},
    };
    const kernel = kernelWith([owner], { config: { server: { port: '8080' } } as unknown as HubosConfig });
    const error = await expectHubosRejection(kernel.boot(), 'CONFIG_INVALID');
    expect(error.message).toContain('"server.port" must be integer, got string "8080"');
  });

  it('a config hook that adds an unknown key fails validation', async () => {
    const kernel = kernelWith([
      plugin('messy', (k) => k.hooks.config.tap('messy', (c) => ({ ...c, junk: 1 }) as HubosConfig)),
    ]);
    const error = await expectHubosRejection(kernel.boot(), 'CONFIG_INVALID');
    expect(error.message).toContain('unknown key "junk"');
  });

  it('"plugins" that is not an array fails boot with CONFIG_INVALID before anything is loaded', async () => {
    const kernel = kernelWith([], { config: { plugins: './weather.ts' } as unknown as HubosConfig });
    const error = await expectHubosRejection(kernel.boot(), 'CONFIG_INVALID');
    expect(error.message).toContain('"plugins" must be array, got string "./weather.ts"');
  });

  it('two plugins declaring the same config key fail boot with PLUGIN_INVALID naming both', async () => {
    const kernel = kernelWith([
      { name: 'one', configSchema: { shared: { type: 'object' } }, apply() {} },
      { name: 'two', configSchema: { shared: { type: 'object' } }, apply() {} },
    ]);
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_INVALID');
    expect(error.message).toBe('plugin "two" declares config key "shared", which plugin "one" already owns');
  });

  it('a plugin may not declare the kernel\'s own "plugins" key', async () => {
    const kernel = kernelWith([{ name: 'greedy', configSchema: { plugins: { type: 'array' } }, apply() {} }]);
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_INVALID');
    expect(error.message).toContain('which the kernel already owns');
  });

  it('a config that is not an object fails boot with CONFIG_INVALID naming the file', async () => {
    const kernel = kernelWith([], { config: (() => null) as never, configFile: '/app/agent.config.ts' });
    const error = await expectHubosRejection(kernel.boot(), 'CONFIG_INVALID');
    expect(error.message).toContain('/app/agent.config.ts must export an object');
  });

  it('resolves string plugin specifiers from the config file folder (a loaded config file end to end)', async () => {
    const found = await loadConfigFile({ cwd: fixtureApp });
    const kernel = createKernel({
      logger: silentLogger,
      config: found!.exported as HubosConfig,
      configFile: found!.file,
      cwd: '/',
      mode: 'test',
      command: 'serve',
    });
    await kernel.boot();
    expect(kernel.plugins.map((p) => p.name)).toEqual(['fixture-good', 'fixture-greeter-hi-test-serve']);
  });

  it('resolves specifiers from cwd when there is no config file', async () => {
    const kernel = kernelWith([], {
      cwd: pluginsDir,
      config: { plugins: [['./tool-plugin.ts', { toolName: 'from_file' }]] },
    });
    await kernel.boot();
    expect(kernel.registry.get('from_file').description).toBe('A tool from a local plugin file.');
  });

  it('a specifier that cannot be found fails boot with PLUGIN_NOT_FOUND', async () => {
    const kernel = kernelWith([], { cwd: pluginsDir, config: { plugins: ['./missing-plugin.ts'] } });
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_NOT_FOUND');
    expect(error.message).toContain('./missing-plugin.ts');
  });
});

describe('Kernel: state', () => {
  it('use() after boot is refused with KERNEL_STATE', async () => {
    const kernel = await kernelWith().boot();
    const error = expectHubosError(() => kernel.use(plugin('late')), 'KERNEL_STATE');
    expect(error.message).toBe('kernel.use() must be called before boot() (the kernel is ready)');
  });

  it('use() after a failed boot or after close is refused too', async () => {
    const failed = kernelWith([plugin('x', () => Promise.reject(new Error('no')))]);
    await expect(failed.boot()).rejects.toThrow();
    expectHubosError(() => failed.use(plugin('late')), 'KERNEL_STATE');

    const closed = kernelWith();
    await closed.close();
    expectHubosError(() => closed.use(plugin('late')), 'KERNEL_STATE');
  });

  it('boot() runs once', async () => {
    const kernel = await kernelWith().boot();
    const error = await expectHubosRejection(kernel.boot(), 'KERNEL_STATE');
    expect(error.message).toContain('kernel.boot() can run once');
  });

  it('a second concurrent boot() is refused while the first runs', async () => {
    const kernel = kernelWith([plugin('slowish', () => new Promise<void>((r) => setTimeout(r, 20)))]);
    const first = kernel.boot();
    await expectHubosRejection(kernel.boot(), 'KERNEL_STATE');
    await first;
    expect(kernel.state).toBe('ready');
  });
});

describe('Kernel: close', () => {
  function closeRecorder(log: string[], name = 'closer'): Plugin {
    return plugin(name, (k) => {
      k.hooks.beforeClose.tap(name, ({ reason }) => void log.push(`${name}:beforeClose:${reason}`));
      k.hooks.close.tap(name, ({ reason }) => void log.push(`${name}:close:${reason}`));
    });
  }

  it('runs beforeClose for every plugin, then close, with the reason', async () => {
    const log: string[] = [];
    const kernel = await kernelWith([closeRecorder(log, 'a'), closeRecorder(log, 'b')]).boot();
    await kernel.close('SIGTERM');
    expect(log).toEqual([
      'a:beforeClose:SIGTERM',
      'b:beforeClose:SIGTERM',
      'a:close:SIGTERM',
      'b:close:SIGTERM',
    ]);
  });

  it('is idempotent: a second close() does nothing', async () => {
    const log: string[] = [];
    const kernel = await kernelWith([closeRecorder(log)]).boot();
    await kernel.close();
    await kernel.close();
    expect(log).toEqual(['closer:beforeClose:close', 'closer:close:close']);
    expect(kernel.state).toBe('closed');
  });

  it('concurrent close() calls run the close hooks once', async () => {
    const log: string[] = [];
    const kernel = await kernelWith([closeRecorder(log)]).boot();
    await Promise.all([kernel.close(), kernel.close(), kernel.close()]);
    expect(log).toEqual(['closer:beforeClose:close', 'closer:close:close']);
  });

  it('a second close() waits until the close hooks of the first have finished', async () => {
    const log: string[] = [];
    const kernel = await kernelWith([
      plugin('drainer', (k) =>
        k.hooks.close.tapPromise('drain', async () => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          log.push('drained');
        }),
      ),
    ]).boot();
    const first = kernel.close('SIGTERM');
    await kernel.close('SIGINT');
    log.push('second close returned');
    await first;
    expect(log).toEqual(['drained', 'second close returned']);
  });

  it('a failing close tap rejects naming the plugin and hook, and the kernel still ends closed', async () => {
    const kernel = await kernelWith([
      plugin('leaky', (k) =>
        k.hooks.beforeClose.tap('leaky', () => {
          throw new Error('socket busy');
        }),
      ),
    ]).boot();
    const error = await expectHubosRejection(kernel.close(), 'HOOK_FAILED');
    expect(error.message).toBe('plugin "leaky" failed in hook "beforeClose": socket busy');
    expect(kernel.state).toBe('closed');
    // close() is settled once: asking again gives the same outcome, without running the hooks again.
    await expect(kernel.close()).rejects.toBe(error);
  });

  it('a failed boot runs the close hooks of the plugins applied so far, with reason "boot-failed"', async () => {
    const log: string[] = [];
    const kernel = kernelWith([
      closeRecorder(log),
      plugin('broken', () => {
        throw new Error('boom');
      }),
      closeRecorder(log, 'never-applied'),
    ]);
    await expectHubosRejection(kernel.boot(), 'PLUGIN_APPLY_FAILED');
    expect(log).toEqual(['closer:beforeClose:boot-failed', 'closer:close:boot-failed']);
    expect(kernel.state).toBe('failed');
  });

  it('a boot that fails in a hook also runs the close hooks', async () => {
    const log: string[] = [];
    const kernel = kernelWith([
      closeRecorder(log),
      plugin('bad-ready', (k) =>
        k.hooks.ready.tap('bad', () => {
          throw new Error('no');
        }),
      ),
    ]);
    await expectHubosRejection(kernel.boot(), 'HOOK_FAILED');
    expect(log).toEqual(['closer:beforeClose:boot-failed', 'closer:close:boot-failed']);
  });

  it('close() after a failed boot does not run the close hooks a second time', async () => {
    const log: string[] = [];
    const kernel = kernelWith([
      closeRecorder(log),
      plugin('broken', () => Promise.reject(new Error('boom'))),
    ]);
    await expect(kernel.boot()).rejects.toThrow('boom');
    await kernel.close();
    expect(log).toEqual(['closer:beforeClose:boot-failed', 'closer:close:boot-failed']);
    expect(kernel.state).toBe('closed');
  });

  it('a close tap that fails during a failed boot is logged and the boot error is what is thrown', async () => {
    const logger = recordingLogger();
    const kernel = kernelWith(
      [
        plugin('bad-closer', (k) =>
          k.hooks.close.tap('bad', () => {
            throw new Error('close broke');
          }),
        ),
        plugin('broken', () => {
          throw new Error('apply broke');
        }),
      ],
      { logger },
    );
    const error = await expectHubosRejection(kernel.boot(), 'PLUGIN_APPLY_FAILED');
    expect(error.message).toContain('apply broke');
    expect(logger.lines).toEqual(['warn: plugin "bad-closer" failed in hook "close": close broke']);
  });

  it('a kernel closed before boot cannot boot', async () => {
    const kernel = kernelWith();
    await kernel.close();
    await expectHubosRejection(kernel.boot(), 'KERNEL_STATE');
  });
});

describe('Kernel: inspect()', () => {
  it('lists plugins in apply order with version, enforce and dependencies', async () => {
    const kernel = kernelWith([
      plugin('app', undefined, { version: '2.0.0', dependencies: ['store'] }),
      plugin('store'),
      plugin('tail', undefined, { enforce: 'post' }),
      plugin('head', undefined, { enforce: 'pre', version: '0.1.0' }),
    ]);
    await kernel.boot();
    expect(kernel.inspect().plugins).toEqual([
      { name: 'head', version: '0.1.0', enforce: 'pre', dependencies: [] },
      { name: 'store', dependencies: [] },
      { name: 'app', version: '2.0.0', dependencies: ['store'] },
      { name: 'tail', enforce: 'post', dependencies: [] },
    ]);
  });

  it('lists, per hook, the taps in call order with their plugin, type and stage', async () => {
    const kernel = kernelWith([
      plugin('a', (k) => {
        k.hooks.ready.tap('a-ready', () => {});
        k.hooks.close.tapPromise('a-close', async () => {});
      }),
      plugin('b', (k) => {
        k.hooks.ready.tapPromise({ name: 'b-first', stage: -5 }, async () => {});
      }),
    ]);
    kernel.hooks.ready.tap('kernel-own', () => {});
    await kernel.boot();
    const { hooks } = kernel.inspect();
    expect(Object.keys(hooks)).toEqual(expect.arrayContaining(['config', 'ready', 'close', 'registerTools']));
    expect(hooks.ready).toEqual([
      { name: 'b-first', plugin: 'b', type: 'promise', stage: -5 },
      { name: 'kernel-own', type: 'sync', stage: 0 },
      { name: 'a-ready', plugin: 'a', type: 'sync', stage: 0 },
    ]);
    expect(hooks.close).toEqual([{ name: 'a-close', plugin: 'a', type: 'promise', stage: 0 }]);
    expect(hooks.registerTools).toEqual([]);
  });

  it('can be called before boot', () => {
    const inspection = kernelWith().inspect();
    expect(inspection.plugins).toEqual([]);
    expect(inspection.hooks.ready).toEqual([]);
  });
});

describe('Kernel: tracing', () => {
  it('logs hook calls and taps when HUBOS_TRACE_HOOKS is set', async () => {
    vi.stubEnv('HUBOS_TRACE_HOOKS', '1');
    const logger = recordingLogger();
    const kernel = kernelWith([plugin('traced', (k) => k.hooks.ready.tap('t', () => {}))], { logger });
    await kernel.boot();
    expect(logger.lines).toContain('info: hook ready');
    expect(logger.lines).toContain('info:   -> traced');
  });

  it('logs nothing about hooks otherwise', async () => {
    vi.stubEnv('HUBOS_TRACE_HOOKS', '');
    const logger = recordingLogger();
    await kernelWith([plugin('quiet', (k) => k.hooks.ready.tap('t', () => {}))], { logger }).boot();
    expect(logger.lines).toEqual([]);
  });
});
