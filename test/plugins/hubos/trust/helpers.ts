import { afterEach } from 'vitest';
import { defineTool, type HubosConfig, type Kernel, type Plugin } from '../../../../core/index.ts';
import cosmos from '../../../../plugins/cosmos/index.ts';
import hubos, { type HubOSServerOptions } from '../../../../plugins/hubos/index.ts';
import mcp from '../../../../plugins/mcp/index.ts';
import workflows, { defineWorkflow } from '../../../../plugins/workflows/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../../testing/index.ts';

/** Every side effect a request managed to cause: a tool ran, a workflow step ran. */
export const effects: string[] = [];
/** Whom each `touch` call was for (`tc.principal`). */
export const touchedFor: (string | undefined)[] = [];

const sideEffects: Plugin = {
  name: 'side-effects',
  apply(kernel) {
    kernel.hooks.registerTools.tap('side-effects', (registry) =>
      registry.register(
        defineTool({
          name: 'touch',
          description: 'Records that it ran.',
          permissions: ['demo:touch'],
          inputSchema: { type: 'object', properties: {} },
          handler: (_ctx, tc) => {
            effects.push('tool');
            touchedFor.push(tc.principal);
            return { touched: true };
          },
        }),
      ),
    );
  },
};

const record = defineWorkflow({
  name: 'record',
  steps: [
    {
      id: 'mark',
      kind: 'function',
      run: () => {
        effects.push('workflow');
        return 'marked';
      },
    },
  ],
});

/** Waits until it is cancelled: a workflow run that stays running. */
const hold = defineWorkflow({
  name: 'hold',
  steps: [
    {
      id: 'wait',
      kind: 'function',
      run: (_state, { signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        ),
    },
  ],
});

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
  effects.length = 0;
  touchedFor.length = 0;
});

/**
 * The whole server a user runs: an agent that calls a tool when asked, Cosmos, workflows and the
 * MCP endpoint, listening on a real port.
 */
export async function serveAll(
  server: HubOSServerOptions = {},
  script?: ScriptStep[],
  config: Omit<HubosConfig, 'agents'> = {},
) {
  const model = new ScriptedModel(
    script ?? [{ toolCalls: [{ name: 'touch', input: {} }] }, { text: 'Touched.' }],
  );
  kernel = await bootKernel({
    plugins: [
      sideEffects,
      cosmos(),
      workflows([record, hold]),
      mcp(),
      hubos({ port: 0, rateLimit: false, ...server }),
    ],
    config: { ...config, agents: { helper: { description: 'A helper', model, tools: ['touch'] } } },
  });
  const served = kernel.service('hubos');
  const url = await served.serve();
  return { url, port: new URL(url).port, model, kernel, hubos: served };
}
