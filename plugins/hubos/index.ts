import type { KernelView, Plugin } from '../../core/index.ts';
import { HubOS } from './hubos.ts';
import { type HubOSServerOptions, SERVER_CONFIG_SCHEMA } from './options.ts';
import { A2A_CONFIG_SCHEMA, type A2AConfig } from './task-retention.ts';

// The run engine is the kernel's (hubos): named here too for code written against the server.
export type {
  RecordedRunOptions,
  RunDriver,
  RunEngine as RunManager,
  RunEngineOptions as RunManagerOptions,
  RunFollow,
  RunListener,
  RunLogEntry,
  RunRecord,
  RunState,
  RunSurface,
} from '../../core/index.ts';
export { HUBOS_ERROR_CODES } from './errors.ts';
export { HubOS, type HubOSOptions } from './hubos.ts';
export type { HubOSServerOptions } from './options.ts';
export * from './server.ts';
export type { A2AConfig, TaskRetention } from './task-retention.ts';

declare module 'hubos' {
  interface HubosConfig {
    /** The HubOS HTTP server (`hubos serve`). */
    server?: HubOSServerOptions;
    /** The server's A2A endpoints: `retention` says how long their tasks are kept. */
    a2a?: A2AConfig;
  }
}

/**
 * The `hubos` plugin: owns the `server` and `a2a` config keys, and once the kernel is ready builds a HubOS
 * serving every agent of the kernel that is not internal, provided as the `hubos` service.
 * `hubos serve` then calls `kernel.service('hubos').serve()`.
 */
export default function hubos(options: HubOSServerOptions & { name?: string } = {}): Plugin {
  return {
    name: 'hubos',
    provides: ['hubos'],
    configSchema: { server: SERVER_CONFIG_SCHEMA, a2a: A2A_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      let server: HubOS | undefined;
      const serves = (agent: { spec: { internal?: boolean } }) => !agent.spec.internal;
      kernel.hooks.ready.tap('hubos', ({ config }) => {
        server = new HubOS({ name: options.name ?? 'hubos', ...config.server, ...options, kernel });
        for (const agent of kernel.listAgents()) if (serves(agent)) server.registerAgent(agent.id, agent);
        kernel.provide('hubos', server);
      });
      // Agents created later (e.g. by Cosmos) are served too; destroyed ones stop being served.
      kernel.hooks.agentCreated.tap('hubos', ({ agent }) => {
        if (server && serves(agent) && !server.listAgents().some((a) => a.id === agent.id))
          server.registerAgent(agent.id, kernel.agent(agent.id));
      });
      kernel.hooks.agentDestroy.tap('hubos', ({ agent }) => {
        server?.unregisterAgent(agent.id);
      });
      kernel.hooks.beforeClose.tapPromise('hubos', async ({ reason }) => {
        await server?.close(reason);
      });
    },
  };
}
