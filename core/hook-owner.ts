import { HubosError } from './errors.ts';
import { callableView, type TappableHook } from './hook-utils.ts';
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

/**
 * Makes the accessor of a plugin's own hook catalog (`getHubOSHooks(kernel)`): one catalog per
 * kernel and owner, kept on the kernel so it goes with it. Reached through a plugin's kernel view,
 * taps are attributed to that plugin.
 */
export function createHooksAccessor<C extends HookCatalog>(
  owner: string,
  create: () => C,
): (kernel: KernelLike) => C {
  return (kernel) => {
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
    const plugin = kernel[PLUGIN_OF];
    if (plugin === undefined) return hooks;
    const catalog = hooks;
    return Object.freeze(
      Object.fromEntries(
        Object.entries(catalog).map(([name, hook]) => [name, callableView(hook, `${owner}.${name}`, plugin)]),
      ),
    ) as C;
  };
}
