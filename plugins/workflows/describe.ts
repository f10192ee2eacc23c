import type { JSONSchema } from '../../core/index.ts';
import type { StepKind, WorkflowDefinition, WorkflowStep } from './types.ts';

/** A step as data a page can draw: what it runs, its limits, and its children by role. */
export interface StepShape {
  id: string;
  kind: StepKind;
  description?: string;
  agent?: string;
  tool?: string;
  team?: string;
  retries?: number;
  continueOnError?: boolean;
  timeoutMs?: number;
  max?: number;
  /** parallel and loop children; a branch's steps when its condition holds */
  steps?: StepShape[];
  /** a branch's steps otherwise */
  else?: StepShape[];
}

export interface WorkflowShape {
  name: string;
  description?: string;
  inputSchema: JSONSchema;
  steps: StepShape[];
}

export function describeWorkflow(definition: WorkflowDefinition, inputSchema: JSONSchema): WorkflowShape {
  return {
    name: definition.name,
    ...(definition.description ? { description: definition.description } : {}),
    inputSchema,
    steps: definition.steps.map(describeStep),
  };
}

function describeStep(step: WorkflowStep): StepShape {
  const shape: StepShape = { id: step.id, kind: step.kind };
  if (step.description) shape.description = step.description;
  if (step.retries !== undefined) shape.retries = step.retries;
  if (step.continueOnError) shape.continueOnError = true;
  if (step.timeoutMs !== undefined) shape.timeoutMs = step.timeoutMs;
  switch (step.kind) {
    case 'agent':
      shape.agent = step.agent;
      break;
    case 'tool':
      shape.tool = step.tool;
      break;
    case 'stars':
      shape.team = step.team;
      break;
    case 'parallel':
      shape.steps = step.steps.map(describeStep);
      break;
    case 'loop':
      shape.max = step.max;
      shape.steps = step.steps.map(describeStep);
      break;
    case 'branch':
      shape.steps = step.steps.map(describeStep);
      shape.else = (step.else ?? []).map(describeStep);
      break;
  }
  return shape;
}
