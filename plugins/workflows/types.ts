import type { AgentEvent, JSONSchema, Usage } from '../../core/index.ts';
import type { StarsEvent } from '../stars/index.ts';

/**
 * What steps read: the validated input and each finished step's output under its id. Outputs are
 * kept as JSON (what the store keeps is what later steps read, in this process or after a resume).
 */
export interface WorkflowState<I = unknown> {
  readonly runId: string;
  readonly workflow: string;
  readonly input: I;
  readonly steps: Readonly<Record<string, unknown>>;
  /** The current iteration (0-based) of each loop the step is in, by loop id. */
  readonly iterations: Readonly<Record<string, number>>;
}

/** A value given as is, or computed from the state when the step starts. */
export type FromState<T, I> = T | ((state: WorkflowState<I>) => T | Promise<T>);

export type Condition<I> = (state: WorkflowState<I>) => boolean | Promise<boolean>;

/** What every step may declare. Ids are unique across the whole workflow (nested steps included). */
export interface StepBase {
  id: string;
  /** Shown on the page and in `describe()`. */
  description?: string;
  /** On failure, run the step again up to this many times (agent, tool, function and stars steps). */
  retries?: number;
  /** First retry delay; it doubles per retry, up to 30 s (default 200 ms). Leaf steps only. */
  retryDelayMs?: number;
  /** A failure (after retries) is recorded and the workflow goes on without this step's output. */
  continueOnError?: boolean;
  /** Each attempt is cancelled and fails after this long. Leaf steps only. */
  timeoutMs?: number;
}

/** Runs an agent of the kernel on a message; its output is the answer text. */
export interface AgentStep<I = unknown> extends StepBase {
  kind: 'agent';
  agent: string;
  /** The message: a `{{input.x}}` / `{{steps.id}}` template, or a function of the state. */
  input: FromState<string, I>;
  /** Continue this conversation (the agent remembers earlier turns, e.g. across loop iterations). */
  sessionId?: FromState<string, I>;
}

/** Calls a registered tool; the config's permission policy applies. Its output is the tool's. */
export interface ToolStep<I = unknown> extends StepBase {
  kind: 'tool';
  tool: string;
  /** The tool's input: an object whose string values may be templates, or a function of the state. */
  input?: FromState<Record<string, unknown>, I>;
}

export interface FunctionStepContext {
  signal: AbortSignal;
  /** 1 on the first try. */
  attempt: number;
  /** Adds token usage (say, of a model the function calls itself) to the step. */
  addUsage(usage: Partial<Usage>): void;
  /** Who the run is for (the run's `owner`), when its caller said. */
  principal?: string;
}

/** Calls a function of the state; what it returns (as JSON) is the output. */
export interface FunctionStep<I = unknown> extends StepBase {
  kind: 'function';
  run: (state: WorkflowState<I>, context: FunctionStepContext) => unknown;
}

/** Runs its steps at the same time; the output is each child's output by id. A failure cancels the rest. */
export interface ParallelStep<I = unknown> extends StepBase {
  kind: 'parallel';
  steps: WorkflowStep<I>[];
}

/** Runs `steps` when the condition holds, else `else`; the output names the branch taken. */
export interface BranchStep<I = unknown> extends StepBase {
  kind: 'branch';
  if: Condition<I>;
  steps: WorkflowStep<I>[];
  else?: WorkflowStep<I>[];
}

/** Runs its steps again while the condition holds (checked before each pass), at most `max` times. */
export interface LoopStep<I = unknown> extends StepBase {
  kind: 'loop';
  while: Condition<I>;
  max: number;
  steps: WorkflowStep<I>[];
}

/** Runs a Stars team on a task; its output is the leader's answer. */
export interface StarsStep<I = unknown> extends StepBase {
  kind: 'stars';
  team: string;
  task: FromState<string, I>;
}

export type WorkflowStep<I = unknown> =
  | AgentStep<I>
  | ToolStep<I>
  | FunctionStep<I>
  | ParallelStep<I>
  | BranchStep<I>
  | LoopStep<I>
  | StarsStep<I>;

export type StepKind = WorkflowStep['kind'];

export interface WorkflowDefinition<I = unknown> {
  name: string;
  description?: string;
  /** The input is validated against it before anything runs (default: any JSON object). */
  inputSchema?: JSONSchema;
  steps: WorkflowStep<I>[];
  /** The workflow's output (default: the last top-level step's output). */
  output?: (state: WorkflowState<I>) => unknown;
}

export type StepStatus = 'completed' | 'failed' | 'cancelled';
/**
 * `queued` until an instance takes it (`async` starts over HTTP); `interrupted` when the instance
 * running it died and nobody resumed it (see `autoResume`). Every status but `completed` can be resumed.
 */
export type WorkflowRunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

export interface WorkflowError {
  code: string;
  message: string;
  /** The step that failed. */
  stepId?: string;
}

/**
 * One step run. `key` is its id, prefixed inside loops by the pass (`revise[1]/draft`), so each
 * pass of a loop is recorded (and resumed) on its own.
 */
export interface StepRecord {
  key: string;
  id: string;
  kind: StepKind;
  status: StepStatus;
  output?: unknown;
  error?: WorkflowError;
  /** Failed, and the workflow went on (`continueOnError`). */
  continued?: boolean;
  attempts: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  usage: Usage;
}

/**
 * A workflow run as its engine record (`hubos_runs`, agent `workflow:<name>`) and its step rows
 * (`hubos_run_steps`) say.
 */
export interface WorkflowRunRecord {
  runId: string;
  workflow: string;
  /**
   * The principal that started it (`WorkflowRunOptions.principal`; over HubOS, the caller's key):
   * only it and admins see, resume or cancel it. None for runs started without one (the CLI).
   */
  owner?: string;
  status: WorkflowRunStatus;
  /**
   * The instance (`kernel.instance.id`) running it, or that ran it last: the run's row names it,
   * and every write that changes who holds the run names it too, so no other one runs it.
   */
  instance?: string;
  input: unknown;
  /** Finished steps in the order they finished. */
  steps: StepRecord[];
  /** Each condition evaluated (branch taken, loop pass entered), replayed on resume. */
  decisions: Record<string, boolean>;
  output?: unknown;
  error?: WorkflowError;
  usage: Usage;
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
  /** How many times it was resumed. */
  resumes: number;
}

export type WorkflowRunResult = WorkflowRunRecord;

/** What `stream()` yields. Agent (and Stars) events inside a step carry the step's id. */
export type WorkflowEvent =
  | { type: 'workflow-start'; runId: string; workflow: string; input: unknown; resumed: boolean }
  | {
      type: 'workflow-step-start';
      runId: string;
      stepId: string;
      key: string;
      kind: StepKind;
      attempt: number;
    }
  | {
      type: 'workflow-step-error';
      runId: string;
      stepId: string;
      key: string;
      attempt: number;
      error: WorkflowError;
      willRetry: boolean;
    }
  | { type: 'workflow-step-finish'; runId: string; stepId: string; record: StepRecord }
  | ((AgentEvent | StarsEvent) & { stepId: string; workflowRunId: string })
  | { type: 'workflow-finish'; runId: string; result: WorkflowRunResult };

export interface WorkflowRunOptions {
  signal?: AbortSignal;
  /** The run's id (default: a random UUID). */
  runId?: string;
  /**
   * Who the run is for: kept as the run's `owner`, passed to its agent steps as
   * `RunOptions.principal` (so their approvals are that caller's) and to its tools as `tc.principal`.
   * A resumed run keeps its owner.
   */
  principal?: string;
}

/** A workflow of any input type (its functions take its own input type, so `never` admits them all). */
export type AnyWorkflowDefinition = WorkflowDefinition<never>;

/** The `workflows` config key in its object form: the workflows, and how this instance treats runs. */
export interface WorkflowsOptions {
  /** The workflows made with `defineWorkflow` (what the array form lists). */
  definitions?: AnyWorkflowDefinition[];
  /**
   * Resume runs whose instance died (default false). A serving instance looks every third of a
   * lease (`bus.leaseMs`) for runs still `running` whose instance's heartbeat has stopped, takes
   * them over and resumes them: finished steps are replayed, not run again. Without it such runs
   * are marked `interrupted` (error `RUN_INTERRUPTED`), and an explicit resume continues them.
   */
  autoResume?: boolean;
}

/**
 * The `workflows` config key: the workflows made with `defineWorkflow`, or
 * `{ definitions, autoResume }` (see WorkflowsOptions).
 */
export type WorkflowsConfig = AnyWorkflowDefinition[] | WorkflowsOptions;
