import { HubosError, KERNEL_OF, type KernelView, type Plugin } from '../../core/index.ts';
import { getHubOSHooks } from '../hubos/hooks.ts';
import { getStars } from '../stars/index.ts';
import type { TeamLike } from './leaf-steps.ts';
import type { AnyWorkflowDefinition, WorkflowDefinition, WorkflowsConfig } from './types.ts';
import { Workflow } from './workflow.ts';

export { checkDefinition, defineWorkflow } from './define.ts';
export type { StepShape, WorkflowShape } from './describe.ts';
export { type WorkflowErrorCode, workflowError } from './errors.ts';
export type { StepDeps, TeamLike } from './leaf-steps.ts';
export { type RunHeader, WORKFLOW_RUNS_NAMESPACE, WORKFLOW_STEPS_NAMESPACE } from './run-record.ts';
export type * from './types.ts';
export { Workflow, type WorkflowDeps } from './workflow.ts';

declare module '../../core/config.js' {
  interface HubosConfig {
    /** Workflows made with `defineWorkflow`: fixed compositions of agents, tools, functions and teams. */
    workflows?: WorkflowsConfig;
  }
}

export const WORKFLOWS_CONFIG_SCHEMA = {
  type: 'array',
  description: 'Workflows made with defineWorkflow({ name, description, inputSchema, steps }).',
  items: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, steps: { type: 'array', minItems: 1 } },
    required: ['name', 'steps'],
  },
} as const;

const built = new WeakMap<object, Map<string, Workflow>>();

/** The workflows the plugin built for this kernel (after boot), by name. */
export function getWorkflows(kernel: { readonly [KERNEL_OF]: object }): Map<string, Workflow> {
  const found = built.get(kernel[KERNEL_OF]);
  if (!found)
    throw new HubosError(
      'KERNEL_STATE',
      'no workflows on this kernel: add the workflows plugin and boot the kernel',
    );
  return found;
}

/** Finds a Stars team of this kernel for `stars` steps, saying what is missing when it is not there. */
function teamFinder(kernel: KernelView): (name: string) => TeamLike {
  return (name) => {
    let teams: Map<string, TeamLike>;
    try {
      teams = getStars(kernel);
    } catch {
      throw new HubosError(
        'CONFIG_INVALID',
        `no Stars team "${name}": Stars is not on (add a "stars" config key)`,
      );
    }
    const team = teams.get(name);
    if (!team)
      throw new HubosError(
        'CONFIG_INVALID',
        `no Stars team "${name}" (teams: ${[...teams.keys()].join(', ') || 'none'})`,
      );
    return team;
  };
}

/**
 * The `workflows` plugin: owns the `workflows` config key (the options add to it), builds each
 * workflow once the kernel is ready (its agents exist), and HubOS serves them under `/api/workflows`.
 */
export default function workflows(options: AnyWorkflowDefinition[] = []): Plugin {
  return {
    name: 'workflows',
    configSchema: { workflows: WORKFLOWS_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      const byName = new Map<string, Workflow>();
      built.set(kernel[KERNEL_OF], byName);
      kernel.hooks.ready.tap('workflows', ({ config }) => {
        const team = teamFinder(kernel);
        for (const definition of [...(config.workflows ?? []), ...options]) {
          if (byName.has(definition.name))
            throw new HubosError(
              'CONFIG_INVALID',
              `two workflows are named "${definition.name}": names must be unique`,
            );
          // The input is checked against inputSchema at run time, before any of its functions see it.
          byName.set(definition.name, new Workflow(definition as WorkflowDefinition, { kernel, team }));
          warnMissing(kernel, definition);
        }
      });
      // After HubOS has drained its runs gracefully (stage 10): what still runs is cancelled and recorded.
      kernel.hooks.beforeClose.tapPromise({ name: 'workflows', stage: 10 }, async ({ reason }) => {
        await Promise.all(
          [...byName.values()].map((workflow) => workflow.close(`the kernel is closing (${reason})`)),
        );
      });
      getHubOSHooks(kernel).routes.tap('workflows', ({ hubos }) => {
        for (const [name, workflow] of byName)
          if (!hubos.workflows.has(name)) hubos.registerWorkflow(name, workflow);
      });
    },
  };
}

/** Agents, tools and teams may appear after boot (Cosmos, MCP): a missing one is a warning, not an error. */
function warnMissing(kernel: KernelView, definition: AnyWorkflowDefinition): void {
  const walk = (steps: WorkflowDefinition['steps']) => {
    for (const step of steps) {
      if (step.kind === 'agent' && !kernel.getAgent(step.agent))
        kernel.logger.warn(`workflow "${definition.name}" step "${step.id}": no agent "${step.agent}" yet`);
      if (step.kind === 'tool' && !kernel.registry.has(step.tool))
        kernel.logger.warn(`workflow "${definition.name}" step "${step.id}": no tool "${step.tool}" yet`);
      if (step.kind === 'parallel' || step.kind === 'loop') walk(step.steps);
      if (step.kind === 'branch') walk([...step.steps, ...(step.else ?? [])]);
    }
  };
  walk(definition.steps as unknown as WorkflowDefinition['steps']);
}
