import { HubosError, KERNEL_OF, type KernelView, type Plugin } from '../../core/index.ts';

import { HubOS } from './hubos.ts';
import { type HubOSServerOptions, SERVER_CONFIG_SCHEMA } from './options.ts';

export { getHubOSHooks, type HubOSHooks, type RoutesContext } from './hooks.ts';
export { HttpError } from './http-error.ts';
export { HubOS, type HubOSOptions, type StarsLike, type WorkflowLike } from './hubos.ts';
export type { HubOSServerOptions } from './options.ts';
export type { RouteDoc } from './route-docs.ts';
export type { RunRecord, RunState } from './runs.ts';

declare module '../../core/config.js' {
  interface HubosConfig {
    /** The HubOS HTTP server (`hubos serve`). */
    server?: HubOSServerOptions;
  }
}

const servers = new WeakMap<object, HubOS>();

/** The HubOS server the plugin built for this kernel (after boot). */
export function getHubOS(kernel: { readonly [KERNEL_OF]: object }): HubOS {
  const hubos = servers.get(kernel[KERNEL_OF]);
  if (!hubos)
    throw new HubosError(
      'KERNEL_STATE',
      'no HubOS server on this kernel: add the hubos plugin and boot the kernel',
    );
  return hubos;
}

/**
 * The `hubos` plugin: owns the `server` config key, and once the kernel is ready builds a HubOS
 * serving every agent of the kernel. `hubos serve` then calls `getHubOS(kernel).serve()`.
 */
export default function hubos(options: HubOSServerOptions & { name?: string } = {}): Plugin {
  return {
    name: 'hubos',
    configSchema: { server: SERVER_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      const key = kernel[KERNEL_OF];
      kernel.hooks.ready.tap('hubos', ({ config }) => {
        const server = new HubOS({ name: options.name ?? 'hubos', ...config.server, ...options, kernel });
        for (const agent of kernel.listAgents()) server.registerAgent(agent.id, agent);
        servers.set(key, server);
      });
      // Agents created later (e.g. by Cosmos) are served too; destroyed ones stop being served.
      kernel.hooks.agentCreated.tap('hubos', ({ agent }) => {
        const server = servers.get(key);
        // A sub-agent lives for one delegated task of its parent: it is not served on its own.
        if (agent.spec.metadata?.subagent) return;
        if (server && !server.listAgents().some((a) => a.id === agent.id))
          server.registerAgent(agent.id, kernel.agent(agent.id));
      });
      kernel.hooks.agentDestroy.tap('hubos', ({ agent }) => {
        servers.get(key)?.unregisterAgent(agent.id);
      });
      kernel.hooks.beforeClose.tapPromise('hubos', async ({ reason }) => {
        await servers.get(key)?.close(reason);
      });
    },
  };
}
