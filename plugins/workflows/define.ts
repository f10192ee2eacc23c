import { HubosError, type InputOf, type JSONSchemaObject } from '../../core/index.ts';
import type { StepKind, WorkflowDefinition, WorkflowStep } from './types.ts';

const NAME = /^[A-Za-z0-9_-]+$/;
const KINDS: readonly StepKind[] = ['agent', 'tool', 'function', 'parallel', 'branch', 'loop', 'stars'];
const LEAVES: readonly StepKind[] = ['agent', 'tool', 'function', 'stars'];

/**
 * Declares a workflow: checks its shape at once (unique step ids, each kind's fields, limits) so a
 * mistake fails where it is written, naming the workflow and the step. Returns it unchanged; the
 * state's `input` is typed from `inputSchema` (or from the type argument: `defineWorkflow<{ topic: string }>`).
 */
export function defineWorkflow<const S extends JSONSchemaObject>(
  definition: WorkflowDefinition<InputOf<S>> & { inputSchema: S },
): WorkflowDefinition<InputOf<S>>;
export function defineWorkflow<I = unknown>(definition: WorkflowDefinition<I>): WorkflowDefinition<I>;
export function defineWorkflow(definition: WorkflowDefinition): WorkflowDefinition {
  checkDefinition(definition);
  return definition;
}

export function checkDefinition(definition: WorkflowDefinition): void {
  const problem = (message: string): never => {
    const name = typeof definition?.name === 'string' ? ` "${definition.name}"` : '';
    throw new HubosError('CONFIG_INVALID', `workflow${name}: ${message}`, {
      details: { workflow: definition?.name },
    });
  };
  if (!definition || typeof definition !== 'object') problem('a workflow must be an object { name, steps }');
  if (typeof definition.name !== 'string' || !NAME.test(definition.name))
    problem('"name" must be letters, digits, "_" or "-" (it appears in URLs)');
  if (definition.name === 'runs') problem('"runs" names the route of workflow runs: pick another name');
  if (definition.output !== undefined && typeof definition.output !== 'function')
    problem('"output" must be a function of the state');
  const seen = new Set<string>();
  checkSteps(definition.steps, 'steps', seen, problem);
}

function checkSteps(
  steps: unknown,
  path: string,
  seen: Set<string>,
  problem: (message: string) => never,
): void {
  if (!Array.isArray(steps) || steps.length === 0) problem(`"${path}" must be a non-empty array of steps`);
  (steps as unknown[]).forEach((step, index) => {
    checkStep(step as WorkflowStep, `${path}[${index}]`, seen, problem);
  });
}

function checkStep(step: WorkflowStep, path: string, seen: Set<string>, problem: (message: string) => never) {
  if (!step || typeof step !== 'object') problem(`${path} must be a step object`);
  if (typeof step.id !== 'string' || !NAME.test(step.id))
    problem(`${path}: "id" must be letters, digits, "_" or "-"`);
  const at = `step "${step.id}" (${path})`;
  if (seen.has(step.id)) problem(`${at}: the id is used twice; step ids must be unique in a workflow`);
  seen.add(step.id);
  if (!KINDS.includes(step.kind)) problem(`${at}: "kind" must be one of ${KINDS.join(', ')}`);
  const need = (ok: boolean, what: string) => {
    if (!ok) problem(`${at}: ${what}`);
  };
  const fromState = (value: unknown) => typeof value === 'string' || typeof value === 'function';
  if (step.retries !== undefined) {
    need(Number.isInteger(step.retries) && step.retries >= 0, '"retries" must be a whole number >= 0');
    need(LEAVES.includes(step.kind), `"retries" applies to ${LEAVES.join(', ')} steps, not ${step.kind}`);
  }
  if (step.retryDelayMs !== undefined) {
    need(Number.isFinite(step.retryDelayMs) && step.retryDelayMs >= 0, '"retryDelayMs" must be >= 0');
    need(
      LEAVES.includes(step.kind),
      `"retryDelayMs" applies to ${LEAVES.join(', ')} steps, not ${step.kind}`,
    );
  }
  if (step.timeoutMs !== undefined) {
    need(Number.isFinite(step.timeoutMs) && step.timeoutMs > 0, '"timeoutMs" must be > 0');
    // A container's children each have their own timeouts; one over the whole would cut them mid-record.
    need(LEAVES.includes(step.kind), `"timeoutMs" applies to ${LEAVES.join(', ')} steps, not ${step.kind}`);
  }
  if (step.continueOnError !== undefined)
    need(typeof step.continueOnError === 'boolean', '"continueOnError" must be true or false');
  switch (step.kind) {
    case 'agent':
      need(typeof step.agent === 'string' && step.agent !== '', '"agent" must name an agent');
      need(fromState(step.input), '"input" must be a string (may hold {{...}}) or a function of the state');
      if (step.sessionId !== undefined)
        need(fromState(step.sessionId), '"sessionId" must be a string or a function');
      return;
    case 'tool':
      need(typeof step.tool === 'string' && step.tool !== '', '"tool" must name a registered tool');
      if (step.input !== undefined)
        need(
          typeof step.input === 'function' || (typeof step.input === 'object' && !Array.isArray(step.input)),
          '"input" must be an object or a function of the state',
        );
      return;
    case 'function':
      need(typeof step.run === 'function', '"run" must be a function (state, { signal }) => output');
      return;
    case 'stars':
      need(typeof step.team === 'string' && step.team !== '', '"team" must name a Stars team');
      need(fromState(step.task), '"task" must be a string (may hold {{...}}) or a function of the state');
      return;
    case 'parallel':
      checkSteps(step.steps, `${path}.steps`, seen, problem);
      return;
    case 'branch':
      need(typeof step.if === 'function', '"if" must be a function of the state returning true or false');
      checkSteps(step.steps, `${path}.steps`, seen, problem);
      if (step.else !== undefined) checkSteps(step.else, `${path}.else`, seen, problem);
      return;
    case 'loop':
      need(
        typeof step.while === 'function',
        '"while" must be a function of the state returning true or false',
      );
      need(
        Number.isInteger(step.max) && step.max >= 1,
        '"max" must be a whole number >= 1 (the most passes)',
      );
      checkSteps(step.steps, `${path}.steps`, seen, problem);
      return;
  }
}
