import { AsyncSeriesBailHook } from 'tapable';
import { errorMessage, HubosError } from './errors.ts';
import type { TapMeta } from './hooks.ts';

type TapOptions = string | { name: string; stage?: number; before?: string };
// biome-ignore lint/suspicious/noExplicitAny: hooks of every argument shape
type AnyFn = (...args: any[]) => any;

/** The part of a tapable hook every hook here has: what a hook catalog may hold. */
export interface TappableHook {
  // biome-ignore lint/suspicious/noExplicitAny: taps of every argument shape
  tap(options: string | { name: string; stage?: number; before?: string }, fn: (...args: any[]) => any): void;
  tapPromise(
    options: string | { name: string; stage?: number; before?: string },
    // biome-ignore lint/suspicious/noExplicitAny: taps of every argument shape
    fn: (...args: any[]) => any,
  ): void;
  // biome-ignore lint/complexity/noBannedTypes: tapable types tap functions as Function
  taps: ReadonlyArray<{ name: string; type: string; stage?: number; fn: Function } & TapMeta>;
  intercept(interceptor: object): void;
}

/** What a plugin may do with a kernel hook: tap it, never call it. */
export type TapOnly<H> = H extends { tap: infer T; tapPromise: infer P } ? { tap: T; tapPromise: P } : never;
export type TapOnlyHooks<C> = { readonly [K in keyof C]: TapOnly<C[K]> };

// Errors raised by `next` inside a wrap tap belong to what is inside, not to the tap.
const passThrough = new WeakSet<object>();

/** Re-throws `error` naming the plugin and hook; errors already attributed pass unchanged. */
function attributeError(error: unknown, plugin: string, hook: string): never {
  if (typeof error === 'object' && error !== null) {
    if (passThrough.has(error)) throw error;
    if (HubosError.is(error) && error.details.plugin !== undefined) throw error;
  }
  const message = `plugin "${plugin}" failed in hook "${hook}": ${errorMessage(error)}`;
  const code = HubosError.is(error) ? error.code : 'HOOK_FAILED';
  const details = { ...(HubosError.is(error) ? error.details : {}), plugin, hook };
  throw new HubosError(code, message, { cause: error, details });
}

function markInner(arg: unknown): unknown {
  if (typeof arg !== 'function') return arg;
  return async (...args: unknown[]) => {
    try {
      return await arg(...args);
    } catch (error) {
      if (typeof error === 'object' && error !== null) passThrough.add(error);
      throw error;
    }
  };
}

function attributed(
  fn: AnyFn,
  plugin: string,
  hook: string,
  mapArgs?: (args: unknown[]) => unknown[],
): AnyFn {
  return function (this: unknown, ...raw: unknown[]) {
    const args = mapArgs ? mapArgs(raw) : raw;
    try {
      // Only a wrap hook's `next` is a function argument; other hooks pass context objects untouched.
      for (let i = 0; i < args.length; i++) if (typeof args[i] === 'function') args[i] = markInner(args[i]);
      const result = fn.apply(this, args);
      if (result instanceof Promise) return result.catch((error) => attributeError(error, plugin, hook));
      return result;
    } catch (error) {
      attributeError(error, plugin, hook);
    }
  };
}

function withPlugin(options: TapOptions, plugin: string): { name: string } & TapMeta {
  return typeof options === 'string' ? { name: options, plugin } : { ...options, plugin };
}

/**
 * A view of one hook for one plugin: its taps carry the plugin's name and its errors name both.
 * `mapArgs` lets the view hand the tap plugin-specific views of its arguments.
 */
export function tapView<H extends TappableHook>(
  hook: H,
  hookName: string,
  plugin: string,
  mapArgs?: (args: unknown[]) => unknown[],
): TapOnly<H> {
  return {
    tap: (options: TapOptions, fn: AnyFn) =>
      hook.tap(withPlugin(options, plugin), attributed(fn, plugin, hookName, mapArgs)),
    tapPromise: (options: TapOptions, fn: AnyFn) =>
      hook.tapPromise(withPlugin(options, plugin), attributed(fn, plugin, hookName, mapArgs)),
  } as TapOnly<H>;
}

/** Tap-only views of a whole hook catalog for one plugin. */
export function tapViews<C extends { readonly [K in keyof C]: TappableHook }>(
  hooks: C,
  plugin: string,
): TapOnlyHooks<C> {
  const views = Object.fromEntries(
    Object.entries<TappableHook>(hooks).map(([name, hook]) => [name, tapView(hook, name, plugin)]),
  );
  return Object.freeze(views) as TapOnlyHooks<C>;
}

/**
 * A view that also lets the holder call the hook: what a plugin gets of hooks it owns,
 * so its own taps and calls work while others' taps are still attributed.
 */
export function callableView<H extends TappableHook>(hook: H, hookName: string, plugin: string): H {
  const view = tapView(hook, hookName, plugin);
  return new Proxy(hook, {
    get: (target, key) => (key === 'tap' || key === 'tapPromise' ? view[key] : Reflect.get(target, key)),
  });
}

// ---- wrap hooks: Koa/Hono-style middleware, earliest tap outermost ----

export type Next<C, R> = (ctx: C) => Promise<R>;
export type WrapHook<C, R> = AsyncSeriesBailHook<[C, Next<C, R>], R, TapMeta>;

/** A hook whose taps wrap an inner call: `tapPromise(name, async (ctx, next) => next(ctx))`. */
export function createWrapHook<C, R>(argName = 'context'): WrapHook<C, R> {
  return new AsyncSeriesBailHook<[C, Next<C, R>], R, TapMeta>([argName, 'next']);
}

/**
 * Composes taps around `inner`: the first tap is the outermost, so with taps A, B the order is
 * A-before, B-before, inner, B-after, A-after. (tapable would run them in series, not nested.)
 */
// biome-ignore lint/complexity/noBannedTypes: tapable types tap functions as Function
export function composeTaps<C, R>(taps: ReadonlyArray<{ fn: Function }>, inner: Next<C, R>): Next<C, R> {
  return taps.reduceRight<Next<C, R>>(
    (next, tap) => (ctx) => Promise.resolve((tap.fn as AnyFn)(ctx, next)),
    inner,
  );
}

/** Runs a wrap hook around `inner`. */
export function runWrapHook<C, R>(hook: WrapHook<C, R>, ctx: C, inner: Next<C, R>): Promise<R> {
  return composeTaps<C, R>(hook.taps, inner)(ctx);
}

// ---- tracing ----

/** Logs every call of every hook and each tap as it runs, e.g. `HUBOS_TRACE_HOOKS=1`. */
export function traceHooks<C extends { readonly [K in keyof C]: TappableHook }>(
  hooks: C,
  write: (line: string) => void,
): void {
  for (const [name, hook] of Object.entries<TappableHook>(hooks)) {
    hook.intercept({
      call: () => write(`hook ${name}`),
      tap: (tap: { name: string } & TapMeta) => write(`  -> ${tap.plugin ?? tap.name}`),
    });
  }
}
