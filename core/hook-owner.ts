import { HubosError } from './errors.ts';
import { callableView, type TapOnlyHooks, type TappableHook } from './hook-utils.ts';
import { KERNEL_OF, PLUGIN_OF } from './kernel-view.ts';

/**
 * Lets a kernel list hooks that plugins own, next to its own, in `inspect()`.
 * @internal
 */
export const REGISTER_OWNED_HOOKS = Symbol.for('hubos.register-owned-hooks');

/** A plugin's own hooks, by name: tapable hooks (or wrap hooks), made by its `createHooksAccessor` factory. */
export type HookCatalog = Record<string, TappableHook>;

/** What a hook accessor takes: the kernel, or the kernel view a plugin's `apply()` received. */
export interface KernelLike {
  readonly [KERNEL_OF]: object;
  readonly [PLUGIN_OF]?: string;
}

// Catalogs live on the kernel object, by owner: a plugin built against another copy of the package
// reaches the same hooks as the copy that fires them (a WeakMap per module would give it its own).
const CATALOGS = Symbol.for('hubos.hook-catalogs');

/** A hook's methods that call it (or watch its calls): its owner's, not for other plugins. */
const CALLS = new Set<PropertyKey>(['call', 'promise', 'callAsync', 'intercept']);

/**
 * The accessor of a plugin's own hooks. `getMyHooks(kernel)` is for tapping: through another
 * plugin's kernel view, calling a hook throws (only the owner calls its hooks). The owner, or the app
 * holding the kernel itself, calls them through `getMyHooks.owned(kernel)`.
 */
export interface HooksAccessor<C extends HookCatalog> {
  /** The hooks to tap, through the kernel (view) a plugin's `apply()` received. */
  (kernel: KernelLike): TapOnlyHooks<C>;
  /** The hooks to call as well as tap: throws through the kernel view of a plugin that is not the owner. */
  owned(kernel: KernelLike): C;
}

/**
 * Makes the accessor of a plugin's own hook catalog (`getHubOSHooks(kernel)`): one catalog per
 * kernel and owner, kept on the kernel so it goes with it. Reached through a plugin's kernel view,
 * taps are attributed to that plugin, and only the owner's view may call the hooks.
 */
export function createHooksAccessor<C extends HookCatalog>(owner: string, create: () => C): HooksAccessor<C> {
  const catalogOf = (kernel: KernelLike): C => {
    const real = kernel?.[KERNEL_OF];
    if (!real)
      throw new HubosError(
        'KERNEL_STATE',
        `${owner} hooks need a kernel (or the kernel a plugin's apply() received)`,
      );
    const holder = real as { [CATALOGS]?: Map<string, HookCatalog> };
    if (!holder[CATALOGS]) Object.defineProperty(holder, CATALOGS, { value: new Map() });
    const catalogs = holder[CATALOGS]!;
    let hooks = catalogs.get(owner) as C | undefined;
    if (!hooks) {
      hooks = Object.freeze(create());
      catalogs.set(owner, hooks);
      (real as { [REGISTER_OWNED_HOOKS]?: (owner: string, hooks: HookCatalog) => void })[
        REGISTER_OWNED_HOOKS
      ]?.(owner, hooks);
    }
    return hooks;
  };
  /** The catalog as `kernel` may use it: the hooks themselves for the app, a view for a plugin. */
  const viewOf = (kernel: KernelLike): C => {
    const hooks = catalogOf(kernel);
    const plugin = kernel[PLUGIN_OF];
    if (plugin === undefined) return hooks;
    return Object.freeze(
      Object.fromEntries(
        Object.entries(hooks).map(([name, hook]) => {
          const qualified = `${owner}.${name}`;
          const view = callableView(hook, qualified, plugin);
          return [name, plugin === owner ? view : withoutCalls(view, qualified, plugin, owner)];
        }),
      ),
    ) as C;
  };
  const owned = (kernel: KernelLike): C => {
    const plugin = kernel?.[PLUGIN_OF];
    if (plugin !== undefined && plugin !== owner)
      throw new HubosError(
        'HOOK_NOT_OWNED',
        `plugin "${plugin}" cannot take the hooks of plugin "${owner}" to call them (owned()): only their owner calls them; other plugins tap them`,
        { details: { plugin, owner } },
      );
    return viewOf(kernel);
  };
  // At run time the owner's (and the app's) hooks are callable through either; the types say which is for what.
  return Object.freeze(
    Object.assign((kernel: KernelLike) => viewOf(kernel) as unknown as TapOnlyHooks<C>, { owned }),
  );
}

/** A hook as a plugin that does not own it sees it: taps go through, calls throw naming both. */
function withoutCalls<H extends TappableHook>(hook: H, name: string, plugin: string, owner: string): H {
  return new Proxy(hook, {
    get: (target, key) => {
      if (!CALLS.has(key)) return Reflect.get(target, key);
      return () => {
        throw new HubosError(
          'HOOK_NOT_OWNED',
          `plugin "${plugin}" cannot call hook "${name}" (${String(key)}): only its owner, plugin "${owner}", calls it; other plugins tap it (tap, tapPromise)`,
          { details: { plugin, hook: name, owner } },
        );
      };
    },
  });
}
