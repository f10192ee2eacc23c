import { afterEach } from 'vitest';
import type { Kernel, KernelOptions, Plugin } from '../../../core/index.ts';
import { defineTool } from '../../../core/index.ts';
import workflows, { type WorkflowEvent } from '../../../plugins/workflows/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** Adds numbers; declares `math:add` so the permission policy can be tested on it. */
export const addTool = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  permissions: ['math:add'],
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  } as const,
  handler: (_ctx, { input }) => ({ sum: input.a + input.b }),
});

const toolsPlugin: Plugin = {
  name: 'test-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('test-tools', (registry) => registry.register(addTool));
  },
};

/** A kernel with agents `writer` and `reviewer` on scripted models, the `add` tool and the given workflows. */
export async function bootWorkflows(
  definitions: Parameters<typeof workflows>[0],
  scripts: Partial<Record<'writer' | 'reviewer', ScriptStep[]>> = {},
  options: KernelOptions = {},
) {
  const models = {
    writer: new ScriptedModel(scripts.writer ?? []),
    reviewer: new ScriptedModel(scripts.reviewer ?? []),
  };
  const kernel = await bootKernel({
    ...options,
    plugins: [toolsPlugin, workflows(definitions), ...(options.plugins ?? [])],
    config: {
      agents: {
        writer: { instructions: 'Write.', model: models.writer },
        reviewer: { instructions: 'Review.', model: models.reviewer },
      },
      ...options.config,
    },
  });
  kernels.push(kernel);
  return { kernel, models, workflows: kernel.service('workflows') };
}

/** Collects a stream's events. */
export async function collect(events: AsyncIterable<WorkflowEvent>): Promise<WorkflowEvent[]> {
  const seen: WorkflowEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** Resolves after `ms`, or rejects when the signal aborts (as a well-behaved step would). */
export function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
