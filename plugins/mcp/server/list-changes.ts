import type { KernelView } from '../../../core/index.ts';

/**
 * Calls `listener` when the served tools may have changed (a tool registered or removed, an agent
 * created or destroyed, as the `mcp` service reports), at most once per turn of the event loop, so
 * a batch makes one notification. Returns the unsubscribe function.
 */
export function onToolListChange(
  kernel: Pick<KernelView, 'registry' | 'hasService' | 'service'>,
  listener: () => void,
): () => void {
  let pending: NodeJS.Immediate | undefined;
  const changed = () => {
    pending ??= setImmediate(() => {
      pending = undefined;
      listener();
    });
  };
  const offAgents = kernel.hasService('mcp')
    ? kernel.service('mcp').onAgentsChange(changed)
    : () => undefined;
  const offRegistry = kernel.registry.onChange(changed);
  return () => {
    offRegistry();
    offAgents();
    if (pending) clearImmediate(pending);
  };
}
