import { KERNEL_OF, type KernelView } from '../../../core/index.ts';

const agentListeners = new WeakMap<object, Set<() => void>>();

/**
 * Taps the kernel's agent lifecycle (once per kernel), so servers can tell their clients when the
 * `ask_<agent>` tools change. Plugins tap hooks in `apply`: the mcp plugin calls this there.
 */
export function tapAgentChanges(kernel: KernelView): void {
  const key = kernel[KERNEL_OF];
  if (agentListeners.has(key)) return;
  const listeners = new Set<() => void>();
  agentListeners.set(key, listeners);
  const notify = () => {
    for (const listener of listeners) listener();
  };
  kernel.hooks.agentCreated.tap('mcp', notify);
  kernel.hooks.agentDestroy.tap('mcp', notify);
}

/**
 * Calls `listener` when the served tools may have changed (a tool registered or removed, an agent
 * created or destroyed), at most once per turn of the event loop, so a batch makes one notification.
 * Returns the unsubscribe function.
 */
export function onToolListChange(kernel: KernelView, listener: () => void): () => void {
  let pending: NodeJS.Immediate | undefined;
  const changed = () => {
    pending ??= setImmediate(() => {
      pending = undefined;
      listener();
    });
  };
  const agents = agentListeners.get(kernel[KERNEL_OF]);
  agents?.add(changed);
  const offRegistry = kernel.registry.onChange(changed);
  return () => {
    offRegistry();
    agents?.delete(changed);
    if (pending) clearImmediate(pending);
  };
}
