import { HubosError, type Usage } from '../../core/index.ts';
import { addUsage, emptyUsage } from '../../core/internal.ts';
import { toJson } from './json.ts';
import { runLeaf, type StepDeps } from './leaf-steps.ts';
import { StepCancelled, StepFailure, toWorkflowError } from './step-errors.ts';
import type { StepKeeper } from './step-keeper.ts';
import type {
  BranchStep,
  LoopStep,
  ParallelStep,
  StepRecord,
  WorkflowEvent,
  WorkflowState,
  WorkflowStep,
} from './types.ts';

export interface ExecContext {
  deps: StepDeps;
  workflow: string;
  runId: string;
  /** Who the run is for (its record's `owner`): given to agent steps, tools and functions. */
  principal?: string;
  input: unknown;
  recorder: StepKeeper;
  /**
   * In a run taken over or resumed: the tool calls whose approval an earlier instance stored
   * (pending, or decided since). Their approval is waited for or acted on as stored, not asked anew.
   */
  askedBefore?: ReadonlySet<string>;
  /** Every step's latest output by id, as later steps read it. */
  outputs: Record<string, unknown>;
  emit(event: WorkflowEvent): void;
}

/** Where a step runs: its key prefix (loop passes), the loops it is in, and the signal that stops it. */
interface Scope {
  prefix: string;
  iterations: Record<string, number>;
  signal: AbortSignal;
}

const MAX_RETRY_DELAY_MS = 30_000;

/** Runs steps one after another; resolves with their records. */
export async function runSequence(
  steps: readonly WorkflowStep[],
  ctx: ExecContext,
  scope: Scope,
): Promise<StepRecord[]> {
  const records: StepRecord[] = [];
  for (const step of steps) records.push(await runStep(step, ctx, scope));
  return records;
}

export function rootScope(signal: AbortSignal): Scope {
  return { prefix: '', iterations: {}, signal };
}

/**
 * Runs one step and records it. A step a resumed run already finished is not run again: its
 * recorded output goes back into the state. Throws StepFailure (the workflow fails) or
 * StepCancelled; a failure with `continueOnError` is recorded and the workflow goes on.
 */
async function runStep(step: WorkflowStep, ctx: ExecContext, scope: Scope): Promise<StepRecord> {
  const key = scope.prefix + step.id;
  const done = ctx.recorder.finished(key);
  if (done) {
    // A finished container's children are recorded too: replay them so their outputs are back in the state.
    if (!isLeaf(step) && done.status === 'completed') await runContainer(step, ctx, scope, key, true);
    if (done.status === 'completed') ctx.outputs[step.id] = done.output;
    else delete ctx.outputs[step.id];
    return done;
  }
  if (scope.signal.aborted) throw new StepCancelled(0);
  const started = Date.now();
  const finish = async (fields: Pick<StepRecord, 'status' | 'attempts' | 'usage'> & Partial<StepRecord>) => {
    const record: StepRecord = {
      key,
      id: step.id,
      kind: step.kind,
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date().toISOString(),
      durationMs: Date.now() - started,
      ...fields,
    };
    await ctx.recorder.addStep(record, isLeaf(step));
    ctx.emit({ type: 'workflow-step-finish', runId: ctx.runId, stepId: step.id, record });
    return record;
  };
  try {
    const outcome = isLeaf(step)
      ? await attemptLeaf(step, ctx, scope, key)
      : await runContainer(step, ctx, scope, key);
    const output = toJson(outcome.output, `workflow "${ctx.workflow}" step "${step.id}"`);
    ctx.outputs[step.id] = output;
    return await finish({
      status: 'completed',
      attempts: outcome.attempts,
      usage: outcome.usage,
      ...(output !== undefined ? { output } : {}),
    });
  } catch (error) {
    const own = error instanceof StepFailure || error instanceof StepCancelled;
    // A container's failure is its child's: the attempts and usage on the child's record are its own.
    const attempts = own && isLeaf(step) ? error.attempts : 1;
    // Tokens spent by failed attempts were spent all the same; a container's are its children's.
    const usage = own && isLeaf(step) ? error.usage : emptyUsage();
    if (error instanceof StepCancelled || (scope.signal.aborted && !(error instanceof StepFailure))) {
      await finish({ status: 'cancelled', attempts, usage }).catch(() => undefined);
      throw error instanceof StepCancelled ? error : new StepCancelled(attempts, usage);
    }
    const failure = toWorkflowError(error, step.id);
    delete ctx.outputs[step.id];
    if (step.continueOnError) {
      return finish({ status: 'failed', attempts, usage, error: failure, continued: true });
    }
    await finish({ status: 'failed', attempts, usage, error: failure });
    throw error instanceof StepFailure ? error : new StepFailure(failure, attempts, usage);
  }
}

type Leaf = Extract<WorkflowStep, { kind: 'agent' | 'tool' | 'function' | 'stars' }>;
type Container = Exclude<WorkflowStep, Leaf>;
type Outcome = { output: unknown; usage: Usage; attempts: number };

const isLeaf = (step: WorkflowStep): step is Leaf => !('steps' in step);

/** Attempts a leaf step, retrying with a doubling delay; each attempt has its own timeout. */
async function attemptLeaf(step: Leaf, ctx: ExecContext, scope: Scope, key: string): Promise<Outcome> {
  const retries = step.retries ?? 0;
  let usage = emptyUsage();
  const spend = (more: Partial<Usage> | undefined) => {
    usage = addUsage(usage, more);
  };
  for (let attempt = 1; ; attempt++) {
    ctx.emit({
      type: 'workflow-step-start',
      runId: ctx.runId,
      stepId: step.id,
      key,
      kind: step.kind,
      attempt,
    });
    const controller = new AbortController();
    const stop = () => controller.abort(scope.signal.reason);
    scope.signal.addEventListener('abort', stop, { once: true });
    let timedOut = false;
    const timer =
      step.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            controller.abort(new Error(`timed out after ${step.timeoutMs} ms`));
          }, step.timeoutMs);
    try {
      const output = await runLeaf(step, snapshot(ctx, scope), {
        deps: ctx.deps,
        workflow: ctx.workflow,
        runId: ctx.runId,
        ...(ctx.principal !== undefined ? { principal: ctx.principal } : {}),
        key,
        signal: controller.signal,
        attempt,
        ...(ctx.askedBefore ? { askedBefore: ctx.askedBefore } : {}),
        emit: ctx.emit,
        addUsage: spend,
      });
      return { output, usage, attempts: attempt };
    } catch (error) {
      spend(usageOf(error));
      if (scope.signal.aborted) throw new StepCancelled(attempt, usage);
      const failure = timedOut
        ? {
            code: 'STEP_TIMEOUT',
            message: `workflow "${ctx.workflow}" step "${step.id}" timed out after ${step.timeoutMs} ms`,
            stepId: step.id,
          }
        : toWorkflowError(error, step.id);
      const willRetry = attempt <= retries;
      ctx.emit({
        type: 'workflow-step-error',
        runId: ctx.runId,
        stepId: step.id,
        key,
        attempt,
        error: failure,
        willRetry,
      });
      if (!willRetry) throw new StepFailure(failure, attempt, usage);
      const delay = Math.min((step.retryDelayMs ?? 200) * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
      if (!(await sleep(delay, scope.signal))) throw new StepCancelled(attempt, usage);
    } finally {
      clearTimeout(timer);
      scope.signal.removeEventListener('abort', stop);
    }
  }
}

/** What a failed agent run spent (its result rides on the error). */
function usageOf(error: unknown): Partial<Usage> | undefined {
  const result = HubosError.is(error) ? (error.details.result as { usage?: Usage } | undefined) : undefined;
  return result?.usage;
}

/** `replaying`: the container finished in an earlier run; only its children's outputs are restored. */
async function runContainer(
  step: Container,
  ctx: ExecContext,
  scope: Scope,
  key: string,
  replaying = false,
): Promise<Outcome> {
  if (!replaying)
    ctx.emit({
      type: 'workflow-step-start',
      runId: ctx.runId,
      stepId: step.id,
      key,
      kind: step.kind,
      attempt: 1,
    });
  switch (step.kind) {
    case 'parallel':
      return runParallel(step, ctx, scope);
    case 'branch':
      return runBranch(step, ctx, scope, key);
    case 'loop':
      return runLoop(step, ctx, scope, key);
  }
}

/** All children at once; the first failure cancels the others. Output: each child's output by id. */
async function runParallel(step: ParallelStep, ctx: ExecContext, scope: Scope): Promise<Outcome> {
  const controller = new AbortController();
  const stop = () => controller.abort(scope.signal.reason);
  scope.signal.addEventListener('abort', stop, { once: true });
  const child: Scope = { ...scope, signal: controller.signal };
  try {
    const settled = await Promise.allSettled(
      step.steps.map((s) =>
        runStep(s, ctx, child).catch((error: unknown) => {
          if (error instanceof StepFailure) controller.abort(error);
          throw error;
        }),
      ),
    );
    const failed = settled.find((r) => r.status === 'rejected' && r.reason instanceof StepFailure);
    const rejected = failed ?? settled.find((r) => r.status === 'rejected');
    if (rejected) throw (rejected as PromiseRejectedResult).reason;
    const records = settled.map((r) => (r as PromiseFulfilledResult<StepRecord>).value);
    return {
      output: Object.fromEntries(records.map((r) => [r.id, r.output])),
      usage: total(records),
      attempts: 1,
    };
  } finally {
    scope.signal.removeEventListener('abort', stop);
  }
}

async function runBranch(step: BranchStep, ctx: ExecContext, scope: Scope, key: string): Promise<Outcome> {
  const taken = await decide(`${key}?`, () => step.if(snapshot(ctx, scope)), ctx, step.id);
  const records = await runSequence(taken ? step.steps : (step.else ?? []), ctx, scope);
  return {
    output: { branch: taken ? 'then' : 'else', output: records.at(-1)?.output ?? null },
    usage: total(records),
    attempts: 1,
  };
}

/** Passes while the condition holds, at most `max`; each pass's steps are recorded under `<id>[<pass>]/`. */
async function runLoop(step: LoopStep, ctx: ExecContext, scope: Scope, key: string): Promise<Outcome> {
  let usage = emptyUsage();
  let last: unknown = null;
  let pass = 0;
  let stopped: 'condition' | 'max' = 'max';
  for (; pass < step.max; pass++) {
    const inner: Scope = {
      prefix: `${scope.prefix}${step.id}[${pass}]/`,
      iterations: { ...scope.iterations, [step.id]: pass },
      signal: scope.signal,
    };
    if (!(await decide(`${key}[${pass}]?`, () => step.while(snapshot(ctx, inner)), ctx, step.id))) {
      stopped = 'condition';
      break;
    }
    const records = await runSequence(step.steps, ctx, inner);
    usage = addUsage(usage, total(records));
    last = records.at(-1)?.output ?? null;
  }
  return { output: { passes: pass, stopped, output: last }, usage, attempts: 1 };
}

/** Evaluates a condition once per run: the answer is recorded, and a resumed run reuses it. */
async function decide(
  key: string,
  condition: () => unknown,
  ctx: ExecContext,
  stepId: string,
): Promise<boolean> {
  const recorded = ctx.recorder.decision(key);
  if (recorded !== undefined) return recorded;
  let value: boolean;
  try {
    value = Boolean(await condition());
  } catch (error) {
    const failure = toWorkflowError(error, stepId);
    throw new StepFailure({
      ...failure,
      message: `the condition of step "${stepId}" threw: ${failure.message}`,
    });
  }
  await ctx.recorder.decide(key, value);
  return value;
}

function snapshot(ctx: ExecContext, scope: Scope): WorkflowState {
  return Object.freeze({
    runId: ctx.runId,
    workflow: ctx.workflow,
    input: ctx.input,
    steps: Object.freeze({ ...ctx.outputs }),
    iterations: Object.freeze({ ...scope.iterations }),
  });
}

function total(records: readonly StepRecord[]): Usage {
  return records.reduce((sum, r) => addUsage(sum, r.usage), emptyUsage());
}

/** Waits, unless the signal aborts first; resolves false then. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
