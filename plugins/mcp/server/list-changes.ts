import type { KernelView } from '../../../core/index.ts';

type Watch = (listener: () => void) => () => void;
type Kernel = Pick<KernelView, 'registry' | 'resources' | 'prompts' | 'hasService' | 'service'>;

/**
 * Calls `listener` when any of `sources` reports a change, at most once per turn of the event
 * loop, so a batch makes one notification. Returns the unsubscribe function.
 */
function debounced(sources: Watch[], listener: () => void): () => void {
  let pending: NodeJS.Immediate | undefined;
  const changed = () => {
    pending ??= setImmediate(() => {
      pending = undefined;
      listener();
    });
  };
  const offs = sources.map((watch) => watch(changed));
  return () => {
    for (const off of offs) off();
    if (pending) clearImmediate(pending);
  };
}

/** Agents created or destroyed, as the `mcp` service reports them (`ask_<agent>` tools and prompts). */
function agentChanges(kernel: Kernel): Watch {
  return (listener) =>
    kernel.hasService('mcp') ? kernel.service('mcp').onAgentsChange(listener) : () => undefined;
}

/** When the served tools may have changed: a tool registered or removed, an agent created or destroyed. */
export function onToolListChange(kernel: Kernel, listener: () => void): () => void {
  return debounced([(l) => kernel.registry.onChange(l), agentChanges(kernel)], listener);
}

/** When the served resources or templates may have changed. */
export function onResourceListChange(kernel: Kernel, listener: () => void): () => void {
  return debounced([(l) => kernel.resources.onChange(l)], listener);
}

/** When the served prompts may have changed: a prompt registered or removed, an agent created or destroyed. */
export function onPromptListChange(kernel: Kernel, listener: () => void): () => void {
  return debounced([(l) => kernel.prompts.onChange(l), agentChanges(kernel)], listener);
}
