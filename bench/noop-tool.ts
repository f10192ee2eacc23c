import { defineTool, type Plugin } from '../core/index.ts';

/** A plugin registering `noop`, a tool that does nothing: what the benchmarks run agents with. */
export const noopToolPlugin: Plugin = {
  name: 'bench-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('bench-tools', (registry) =>
      registry.register(
        defineTool({
          name: 'noop',
          description: 'Does nothing.',
          inputSchema: { type: 'object' },
          handler: () => 'ok',
        }),
      ),
    );
  },
};
