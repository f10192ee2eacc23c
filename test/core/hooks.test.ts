import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import { describe, expect, it, vi } from 'vitest';
import { composeTaps, tapView, tapViews, traceHooks } from '../../core/hook-utils.ts';
import { createKernelHooks } from '../../core/hooks.ts';
import {
  createHooksAccessor,
  createKernel,
  createWrapHook,
  HubosError,
  type KernelView,
  type Next,
  runWrapHook,
  silentLogger,
} from '../../core/index.ts';
import { expectHubosError, expectHubosRejection } from './helpers.ts';

const KERNEL_HOOKS = [
  'config',
  'configResolved',
  'pluginsApplied',
  'registerTools',
  'toolRegistered',
  'resolveTools',
  'registerModels',
  'ready',
  'agentCreate',
  'agentCreated',
  'agentDestroy',
  'beforeToolCall',
  'wrapToolCall',
  'afterToolCall',
  'toolError',
  'beforeClose',
  'close',
];

describe('kernel hook catalog', () => {
  it('declares the hooks of the design, in one frozen object', () => {
    const hooks = createKernelHooks();
    expect(Object.keys(hooks)).toEqual(KERNEL_HOOKS);
    expect(Object.isFrozen(hooks)).toBe(true);
  });

  it('makes config, resolveTools and agentCreate waterfalls, the tool-call gates bail hooks, the rest series hooks', async () => {
    const hooks = createKernelHooks() as unknown as Record<string, AsyncSeriesHook<[unknown], unknown>>;
    const waterfalls = ['config', 'resolveTools', 'agentCreate'];
    // beforeToolCall bails with a tap's decision; wrapToolCall's taps compose (see runWrapHook).
    const bails = ['beforeToolCall', 'wrapToolCall'];
    for (const name of bails) expect(hooks[name]!.constructor, name).toBe(AsyncSeriesBailHook);
    for (const name of KERNEL_HOOKS.filter((hook) => !bails.includes(hook))) {
      const hook = hooks[name]!;
      expect(hook.constructor, name).toBe(
        waterfalls.includes(name) ? AsyncSeriesWaterfallHook : AsyncSeriesHook,
      );
      hook.tap('t', () => 'changed');
      // A waterfall hands on what its taps return; a series hook resolves to nothing.
      expect(await hook.promise('given'), name).toBe(waterfalls.includes(name) ? 'changed' : undefined);
    }
  });

  it('gives each call fresh hooks: taps on one catalog do not reach another', () => {
    const a = createKernelHooks();
    const b = createKernelHooks();
    a.ready.tap('x', () => {});
    expect(a.ready.taps).toHaveLength(1);
    expect(b.ready.taps).toHaveLength(0);
  });
});

describe('tap-only views', () => {
  it('let a plugin tap but never call a hook', () => {
    const views = tapViews(createKernelHooks(), 'weather');
    expect(Object.keys(views)).toEqual(KERNEL_HOOKS);
    expect(Object.isFrozen(views)).toBe(true);
    for (const view of Object.values(views)) {
      expect(Object.keys(view).sort()).toEqual(['tap', 'tapPromise']);
      expect('promise' in view).toBe(false);
      expect('call' in view).toBe(false);
      expect('callAsync' in view).toBe(false);
      expect('taps' in view).toBe(false);
    }
  });

  it('record which plugin made each tap and keep the tap options', () => {
    const hooks = createKernelHooks();
    tapView(hooks.ready, 'ready', 'first').tap('first-tap', () => {});
    tapView(hooks.ready, 'ready', 'second').tapPromise({ name: 'early', stage: -10 }, async () => {});
    const taps = hooks.ready.taps as ReadonlyArray<(typeof hooks.ready.taps)[number] & { plugin?: string }>;
    expect(taps.map((t) => ({ name: t.name, plugin: t.plugin, stage: t.stage ?? 0, type: t.type }))).toEqual([
      { name: 'early', plugin: 'second', stage: -10, type: 'promise' },
      { name: 'first-tap', plugin: 'first', stage: 0, type: 'sync' },
    ]);
  });

  it('pass arguments and return values through (a waterfall works through views)', async () => {
    const hooks = createKernelHooks();
    tapView(hooks.config, 'config', 'a').tapPromise(
      'a',
      async (config) => ({ ...config, a: 1 }) as typeof config,
    );
    tapView(hooks.config, 'config', 'b').tap('b', (config) => ({ ...config, b: 2 }) as typeof config);
    expect(await hooks.config.promise({ plugins: [] })).toEqual({ plugins: [], a: 1, b: 2 });
  });
});

describe('hook error attribution', () => {
  it('names the plugin and the hook when an async tap rejects', async () => {
    const hooks = createKernelHooks();
    const original = new Error('disk full');
    tapView(hooks.ready, 'ready', 'weather').tapPromise('weather', async () => {
      throw original;
    });
    const error = await expectHubosRejection(hooks.ready.promise({ config: {} }), 'HOOK_FAILED');
    expect(error.message).toBe('plugin "weather" failed in hook "ready": disk full');
    expect(error.details).toEqual({ plugin: 'weather', hook: 'ready' });
    expect(error.cause).toBe(original);
  });

  it('names the plugin and the hook when a sync tap throws', async () => {
    const hooks = createKernelHooks();
    tapView(hooks.close, 'close', 'db').tap('db', () => {
      throw new Error('already closed');
    });
    const error = await expectHubosRejection(hooks.close.promise({ reason: 'test' }), 'HOOK_FAILED');
    expect(error.message).toBe('plugin "db" failed in hook "close": already closed');
  });

  it('names only the failing plugin, and later taps do not run', async () => {
    const hooks = createKernelHooks();
    const later = vi.fn();
    tapView(hooks.ready, 'ready', 'good').tap('good', () => {});
    tapView(hooks.ready, 'ready', 'bad').tap('bad', () => {
      throw new Error('nope');
    });
    tapView(hooks.ready, 'ready', 'later').tap('later', later);
    const error = await expectHubosRejection(hooks.ready.promise({ config: {} }), 'HOOK_FAILED');
    expect(error.details.plugin).toBe('bad');
    expect(later).not.toHaveBeenCalled();
  });

  it.each([
    ['a string', 'plain failure', 'plain failure'],
    ['an object', { status: 503 }, '{"status":503}'],
    ['undefined', undefined, 'undefined'],
  ])('describes a thrown %s readably', async (_label, thrown, shown) => {
    const hooks = createKernelHooks();
    tapView(hooks.ready, 'ready', 'odd').tapPromise('odd', () => Promise.reject(thrown));
    const error = await expectHubosRejection(hooks.ready.promise({ config: {} }), 'HOOK_FAILED');
    expect(error.message).toBe(`plugin "odd" failed in hook "ready": ${shown}`);
    expect(error.message).not.toContain('[object Object]');
  });

  it("keeps a HubosError's code and details and adds the plugin and hook", async () => {
    const hooks = createKernelHooks();
    tapView(hooks.registerTools, 'registerTools', 'tools-a').tap('tools-a', () => {
      throw new HubosError('TOOL_DUPLICATE', 'tool "x" is already registered', { details: { tool: 'x' } });
    });
    const error = await expectHubosRejection(hooks.registerTools.promise({} as never), 'TOOL_DUPLICATE');
    expect(error.message).toBe(
      'plugin "tools-a" failed in hook "registerTools": tool "x" is already registered',
    );
    expect(error.details).toEqual({ tool: 'x', plugin: 'tools-a', hook: 'registerTools' });
  });

  it('passes an error that already names a plugin through unchanged', async () => {
    const hooks = createKernelHooks();
    const attributed = new HubosError('HOOK_FAILED', 'from deeper down', { details: { plugin: 'inner' } });
    tapView(hooks.ready, 'ready', 'outer').tapPromise('outer', async () => {
      throw attributed;
    });
    await expect(hooks.ready.promise({ config: {} })).rejects.toBe(attributed);
  });

  it('leaves taps made on the hook itself (not through a view) unattributed', async () => {
    const hooks = createKernelHooks();
    const original = new Error('raw');
    hooks.ready.tapPromise('kernel', async () => {
      throw original;
    });
    await expect(hooks.ready.promise({ config: {} })).rejects.toBe(original);
  });
});

describe('composeTaps and runWrapHook: earliest tap outermost', () => {
  type Ctx = { log: string[] };

  const wrapping = (name: string, log: string[]) => ({
    fn: async (ctx: Ctx, next: Next<Ctx, string>) => {
      log.push(`${name}-before`);
      const result = await next(ctx);
      log.push(`${name}-after`);
      return `${name}(${result})`;
    },
  });

  it('runs A-before, B-before, inner, B-after, A-after', async () => {
    const log: string[] = [];
    const run = composeTaps<Ctx, string>([wrapping('A', log), wrapping('B', log)], async () => {
      log.push('inner');
      return 'inner';
    });
    expect(await run({ log })).toBe('A(B(inner))');
    expect(log).toEqual(['A-before', 'B-before', 'inner', 'B-after', 'A-after']);
  });

  it('calls inner directly when there are no taps', async () => {
    const inner = vi.fn(async (ctx: Ctx) => `n=${ctx.log.length}`);
    expect(await composeTaps<Ctx, string>([], inner)({ log: ['x'] })).toBe('n=1');
    expect(inner).toHaveBeenCalledTimes(1);
  });

  it('lets a tap change the context passed inwards and the result passed outwards', async () => {
    const run = composeTaps<number, number>(
      [{ fn: async (n: number, next: Next<number, number>) => (await next(n + 1)) * 10 }],
      async (n) => n * 2,
    );
    expect(await run(1)).toBe(40);
  });

  it('lets a tap answer without calling next: inner and later taps do not run', async () => {
    const inner = vi.fn(async () => 'inner');
    const later = vi.fn(async (_ctx: Ctx, next: Next<Ctx, string>) => next(_ctx));
    const run = composeTaps<Ctx, string>([{ fn: async () => 'cached' }, { fn: later }], inner);
    expect(await run({ log: [] })).toBe('cached');
    expect(inner).not.toHaveBeenCalled();
    expect(later).not.toHaveBeenCalled();
  });

  it('accepts synchronous tap functions', async () => {
    const run = composeTaps<number, number>(
      [{ fn: (n: number, next: Next<number, number>) => next(n * 3) }],
      async (n) => n,
    );
    expect(await run(2)).toBe(6);
  });

  it('runWrapHook nests the taps of a wrap hook, in tap order', async () => {
    const hook = createWrapHook<Ctx, string>();
    const log: string[] = [];
    hook.tapPromise('A', wrapping('A', log).fn);
    hook.tapPromise('B', wrapping('B', log).fn);
    const result = await runWrapHook(hook, { log }, async () => {
      log.push('inner');
      return 'inner';
    });
    expect(result).toBe('A(B(inner))');
    expect(log).toEqual(['A-before', 'B-before', 'inner', 'B-after', 'A-after']);
  });

  it('runWrapHook puts a tap with a lower stage further out', async () => {
    const hook = createWrapHook<Ctx, string>();
    const log: string[] = [];
    hook.tapPromise('B', wrapping('B', log).fn);
    hook.tapPromise({ name: 'A', stage: -1 }, wrapping('A', log).fn);
    expect(await runWrapHook(hook, { log }, async () => 'x')).toBe('A(B(x))');
  });

  it('through plugin views: the nesting holds and an inner error is not blamed on any plugin', async () => {
    const hook = createWrapHook<Ctx, string>();
    const log: string[] = [];
    tapView(hook, 'wrapModelCall', 'plugin-a').tapPromise('A', wrapping('A', log).fn);
    tapView(hook, 'wrapModelCall', 'plugin-b').tapPromise('B', wrapping('B', log).fn);
    expect(await runWrapHook(hook, { log }, async () => 'ok')).toBe('A(B(ok))');

    const innerError = new Error('model unavailable');
    await expect(
      runWrapHook(hook, { log: [] }, async () => {
        throw innerError;
      }),
    ).rejects.toBe(innerError);
  });

  it('through plugin views: an error in the inner tap names that plugin, not the outer one', async () => {
    const hook = createWrapHook<Ctx, string>();
    tapView(hook, 'wrapToolCall', 'outer').tapPromise('outer', (ctx, next) => next(ctx));
    tapView(hook, 'wrapToolCall', 'inner').tapPromise('inner', async (ctx, next) => {
      await next(ctx);
      throw new Error('post-processing broke');
    });
    const error = await expectHubosRejection(
      runWrapHook(hook, { log: [] }, async () => 'ok'),
      'HOOK_FAILED',
    );
    expect(error.message).toBe('plugin "inner" failed in hook "wrapToolCall": post-processing broke');
  });

  it('through plugin views: an outer tap may catch an inner failure and recover', async () => {
    const hook = createWrapHook<Ctx, string>();
    tapView(hook, 'wrapModelCall', 'retry').tapPromise('retry', async (ctx, next) => {
      try {
        return await next(ctx);
      } catch {
        return 'fallback';
      }
    });
    expect(
      await runWrapHook(hook, { log: [] }, async () => {
        throw new Error('flaky');
      }),
    ).toBe('fallback');
  });
});

describe('createHooksAccessor: plugin-owned hooks', () => {
  const makeCatalog = () => ({
    routes: new AsyncSeriesHook<[{ paths: string[] }], { plugin?: string }>(['context']),
    listening: new AsyncSeriesHook<[{ port: number }], { plugin?: string }>(['context']),
  });

  it('gives one frozen catalog per kernel, created once', () => {
    const create = vi.fn(makeCatalog);
    const getHooks = createHooksAccessor('server', create);
    const kernelA = createKernel({ logger: silentLogger });
    const kernelB = createKernel({ logger: silentLogger });
    const a = getHooks(kernelA);
    expect(getHooks(kernelA)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(getHooks(kernelB)).not.toBe(a);
    expect(create).toHaveBeenCalledTimes(2);
  });

  it('two accessors of one owner (two copies of the package) reach the same catalog on a kernel', () => {
    const create = vi.fn(makeCatalog);
    const kernel = createKernel({ logger: silentLogger });
    const fromOneCopy = createHooksAccessor('copied', create)(kernel);
    expect(createHooksAccessor('copied', create)(kernel)).toBe(fromOneCopy);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('refuses something that is not a kernel with KERNEL_STATE naming the owner', () => {
    const getHooks = createHooksAccessor('server', makeCatalog);
    const error = expectHubosError(() => getHooks({} as never), 'KERNEL_STATE');
    expect(error.message).toContain('server hooks need a kernel');
    expectHubosError(() => getHooks(undefined as never), 'KERNEL_STATE');
  });

  it('through a plugin view: taps are attributed, the owner can call, and inspect() lists them in order', async () => {
    const getHooks = createHooksAccessor('server', makeCatalog);
    const seen: string[] = [];
    const kernel = createKernel({ logger: silentLogger });
    kernel.use(
      {
        name: 'server',
        apply(view) {
          getHooks(view).routes.tap('server-health', (ctx) => {
            ctx.paths.push('/health');
          });
          // The owner calls its own hook once the app is up.
          view.hooks.ready.tapPromise('server', async () => {
            const context = { paths: [] as string[] };
            await getHooks.owned(view).routes.promise(context);
            seen.push(...context.paths);
          });
        },
      },
      {
        name: 'cosmos',
        dependencies: ['server'],
        apply(view) {
          getHooks(view).routes.tapPromise('cosmos-routes', async (ctx) => {
            ctx.paths.push('/cosmos');
          });
        },
      },
    );
    await kernel.boot();
    expect(seen).toEqual(['/health', '/cosmos']);
    const inspection = kernel.inspect();
    expect(inspection.hooks['server.routes']).toEqual([
      { name: 'server-health', plugin: 'server', type: 'sync', stage: 0 },
      { name: 'cosmos-routes', plugin: 'cosmos', type: 'promise', stage: 0 },
    ]);
    expect(inspection.hooks['server.listening']).toEqual([]);
    await kernel.close();
  });

  it('names the plugin and the owner-qualified hook when a tap on an owned hook fails', async () => {
    const getHooks = createHooksAccessor('stars', makeCatalog);
    const kernel = createKernel({ logger: silentLogger });
    kernel.use({
      name: 'team-plugin',
      apply(view) {
        getHooks(view).listening.tap('team', () => {
          throw new Error('port taken');
        });
      },
    });
    await kernel.boot();
    const error = await expectHubosRejection(
      getHooks.owned(kernel).listening.promise({ port: 1 }),
      'HOOK_FAILED',
    );
    expect(error.message).toBe('plugin "team-plugin" failed in hook "stars.listening": port taken');
    await kernel.close();
  });
});

describe('createHooksAccessor: only the owner calls its hooks', () => {
  const makeCatalog = () => ({
    routes: new AsyncSeriesHook<[{ paths: string[] }], { plugin?: string }>(['context']),
    count: new AsyncSeriesHook<[{ n: number }], { plugin?: string }>(['context']),
  });

  /** Boots a kernel with the owner `server` and another plugin `intruder`; `act` runs in the intruder's apply(). */
  async function withIntruder(act: (view: KernelView, getHooks: ReturnType<typeof accessor>) => void) {
    const getHooks = accessor();
    const kernel = createKernel({ logger: silentLogger });
    kernel.use(
      { name: 'server', apply: (view) => void getHooks.owned(view) },
      { name: 'intruder', dependencies: ['server'], apply: (view) => act(view, getHooks) },
    );
    return { kernel, getHooks };
  }
  const accessor = () => createHooksAccessor('server', makeCatalog);

  it.each(['promise', 'call', 'callAsync', 'intercept'] as const)(
    'another plugin calling %s() on a hook it does not own fails with HOOK_NOT_OWNED naming both',
    async (method) => {
      const { kernel } = await withIntruder((view, getHooks) => {
        const hook = getHooks(view).routes as unknown as Record<string, (...args: unknown[]) => unknown>;
        hook[method]!({ paths: [] }, () => {});
      });
      const error = await expectHubosRejection(kernel.boot(), 'HOOK_NOT_OWNED');
      expect(error.message).toContain(
        `plugin "intruder" cannot call hook "server.routes" (${method}): only its owner, plugin "server", calls it`,
      );
      expect(error.details).toMatchObject({ plugin: 'intruder', hook: 'server.routes', owner: 'server' });
    },
  );

  it("another plugin cannot take the owner's callable hooks with owned()", async () => {
    const { kernel } = await withIntruder((view, getHooks) => {
      void getHooks.owned(view).count.promise({ n: 1 });
    });
    const error = await expectHubosRejection(kernel.boot(), 'HOOK_NOT_OWNED');
    expect(error.message).toContain(
      'plugin "intruder" cannot take the hooks of plugin "server" to call them',
    );
  });

  it('another plugin still taps (attributed), and the app holding the kernel calls', async () => {
    const seen: string[] = [];
    const { kernel, getHooks } = await withIntruder((view, hooks) => {
      hooks(view).count.tap('intruder-count', ({ n }) => void seen.push(`tap ${n}`));
    });
    await kernel.boot();
    await getHooks.owned(kernel).count.promise({ n: 1 });
    expect(seen).toEqual(['tap 1']);
    expect(kernel.inspect().hooks['server.count']).toEqual([
      { name: 'intruder-count', plugin: 'intruder', type: 'sync', stage: 0 },
    ]);
    await kernel.close();
  });

  it('the owner calls through its own view', async () => {
    const getHooks = accessor();
    const seen: number[] = [];
    const kernel = createKernel({ logger: silentLogger });
    kernel.use(
      {
        name: 'server',
        apply(view) {
          view.hooks.ready.tapPromise('server', async () => {
            await getHooks.owned(view).count.promise({ n: 7 });
            // The same hook reached by the plain accessor: typed tap-only, callable at run time by its owner.
            await (getHooks(view).count as unknown as AsyncSeriesHook<[{ n: number }]>).promise({ n: 8 });
          });
        },
      },
      {
        name: 'listener',
        apply: (view) => getHooks(view).count.tap('listener', ({ n }) => void seen.push(n)),
      },
    );
    await kernel.boot();
    expect(seen).toEqual([7, 8]);
    await kernel.close();
  });
});

describe('traceHooks', () => {
  it('writes each hook call and each tap as it runs', async () => {
    const hooks = createKernelHooks();
    const lines: string[] = [];
    traceHooks(hooks, (line) => lines.push(line));
    tapView(hooks.ready, 'ready', 'weather').tap('weather-ready', () => {});
    hooks.ready.tap('bare', () => {});
    await hooks.ready.promise({ config: {} });
    expect(lines).toEqual(['hook ready', '  -> weather', '  -> bare']);
  });
});
