import type { GuardrailsConfig } from '../../../core/guardrails/guardrail.ts';
import type { Kernel } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { testTools } from './helpers.ts';

export interface Guarded {
  kernel: Kernel;
  hubos: HubOS;
  model: ScriptedModel;
  url: string;
  close(): Promise<void>;
}

/** A listening HubOS serving `helper` (tools echo, wait) on a ScriptedModel, with these guardrails. */
export async function serveGuarded(
  script: ScriptStep[],
  guardrails: GuardrailsConfig,
  top: GuardrailsConfig = {},
): Promise<Guarded> {
  const model = new ScriptedModel(script);
  const kernel = await bootKernel({
    plugins: [testTools],
    config: {
      guardrails: top,
      agents: { helper: { description: 'A guarded helper', model, tools: ['*'], guardrails } },
    },
  });
  const hubos = new HubOS({ kernel, name: 'guarded', port: 0, rateLimit: false });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  return {
    kernel,
    hubos,
    model,
    url,
    close: async () => {
      await hubos.close();
      await kernel.close();
    },
  };
}

/** A model answer streamed in exactly these deltas. */
export const deltas = (...parts: string[]): ScriptStep => ({
  chunks: [
    ...parts.map((delta) => ({ type: 'text-delta' as const, delta })),
    { type: 'finish' as const, finishReason: 'stop' as const },
  ],
});
