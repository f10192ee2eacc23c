import { HubosError, type KernelView, type Plugin } from '../../core/index.ts';
import type { TeamLike } from './leaf-steps.ts';
import { tapWorkflowRoutes } from './routes.ts';
import { WorkflowServing } from './serving.ts';
import type {
  AnyWorkflowDefinition,
  WorkflowDefinition,
  WorkflowsConfig,
  WorkflowsOptions,
} from './types.ts';
import { Workflow } from './workflow.ts';

export { checkDefinition, defineWorkflow } from './define.ts';
export type { StepShape, WorkflowShape } from './describe.ts';
export { WORKFLOW_ERROR_CODES, type WorkflowErrorCode } from './errors.ts';
export type { StepDeps, TeamLike } from './leaf-steps.ts';
export { WORKFLOW_RESUME_BODY, WORKFLOW_RUN_BODY, workflowRoutes } from './routes.ts';
export { type RunHeader, WORKFLOW_PREFIX } from './run-view.ts';
export type * from './types.ts';
export { Workflow, type WorkflowDeps } from './workflow.ts';

declare module 'hubos' {
  interface HubosConfig {
    /**
     * Workflows made with `defineWorkflow`: fixed compositions of agents, tools, functions and teams.
     * Or `{ definitions, autoResume }`: with `autoResume: true` a serving instance resumes the runs
     * of instances that died (their heartbeat stopped) from their last finished step; without it
     * they are marked `interrupted`, to be resumed by hand.
     */
    workflows?: WorkflowsConfig;
  }
}

declare module 'hubos' {
  interface HubosServices {
    /** The kernel's workflows by name (built in `ready`). */
    workflows: ReadonlyMap<string, Workflow>;
  }
}

const DEFINITIONS_SCHEMA = {
  type: 'array',
  description: 'Workflows made with defineWorkflow({ name, description, inputSchema, steps }).',
  items: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, steps: { type: 'array', minItems: 1 } },
    required: ['name', 'steps'],
  },
} as const;

export const WORKFLOWS_CONFIG_SCHEMA = {
  description:
    'Workflows made with defineWorkflow, or { definitions, autoResume } (autoResume: resume the runs of instances that died).',
  anyOf: [
    DEFINITIONS_SCHEMA,
    {
      type: 'object',
      properties: { definitions: DEFINITIONS_SCHEMA, autoResume: { type: 'boolean' } },
      additionalProperties: false,
    },
  ],
} as const;

/** Either form of the key (or of the plugin's options) as `{ definitions, autoResume }`. */
function settings(value: WorkflowsConfig | undefined): Required<WorkflowsOptions> {
  if (Array.isArray(value)) return { definitions: value, autoResume: false };
  return { definitions: value?.definitions ?? [], autoResume: value?.autoResume ?? false };
}

/** Finds a Stars team of this kernel for `stars` steps, saying what is missing when it is not there. */
function teamFinder(kernel: KernelView): (name: string) => TeamLike {
  return (name) => {
    if (!kernel.hasService('stars'))
      throw new HubosError(
        'CONFIG_INVALID',
        `no Stars team "${name}": Stars is not on (add a "stars" config key)`,
      );
    const teams: ReadonlyMap<string, TeamLike> = kernel.service('stars');
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
 * workflow once the kernel is ready (its agents exist) as the `workflows` service, and HubOS serves them
 * under `/api/workflows`. Their runs are runs of the kernel's run engine (`kernel.runs`): see
 * WorkflowServing.
 */
export default function workflows(options: WorkflowsConfig = []): Plugin {
  return {
    name: 'workflows',
    provides: ['workflows'],
    configSchema: { workflows: WORKFLOWS_CONFIG_SCHEMA },
    apply(kernel: KernelView) {
      const byName = new Map<string, Workflow>();
      let serving: WorkflowServing | undefined;
      kernel.provide('workflows', byName);
      kernel.hooks.ready.tap('workflows', ({ config }) => {
        const team = teamFinder(kernel);
        const [own, given] = [settings(config.workflows), settings(options)];
        serving = new WorkflowServing(kernel, byName, own.autoResume || given.autoResume);
        for (const definition of [...own.definitions, ...given.definitions]) {
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
      // After HubOS's own ready tap (stage 100): its engine exists, and it has not served yet.
      kernel.hooks.ready.tapPromise({ name: 'workflows', stage: 100 }, async () => {
        await serving?.start();
      });
      // After HubOS has drained its runs gracefully (stage 10): what still runs is cancelled and
      // recorded (the kernel then drains its engine).
      kernel.hooks.beforeClose.tapPromise({ name: 'workflows', stage: 10 }, async () => {
        await Promise.all([...byName.values()].map((workflow) => workflow.close()));
      });
      tapWorkflowRoutes(kernel, byName);
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
