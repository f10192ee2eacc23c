import { randomUUID } from 'node:crypto';
import { CALL_SURFACES, type CallSurface } from '../call-surface.ts';
import type { Compaction } from '../context/compaction.ts';
import { holdsCutResult, LargeResults, RUN_TOOLS, withReadResult } from '../context/large-results.ts';
import type { ToolResultsLimits } from '../context/tool-results-config.ts';
import { errorMessage, HubosError, type HubosErrorCode } from '../errors.ts';
import type { GuardrailContext, GuardrailVerdictRecord } from '../guardrails/guardrail.ts';
import type { StageGuardrails } from '../guardrails/resolve-guardrails.ts';
import { GuardrailTripped, runGuardrails } from '../guardrails/run-guardrails.ts';
import { tripEvent } from '../guardrails/verdict-events.ts';
import { isFallbackModel } from '../model/fallback-model.ts';
import { type LanguageModel, type ModelRequest, modelRefOf, type ToolDefinition } from '../model/model.ts';
import { createPolicy, type PermissionsConfig, type Policy } from '../permissions.ts';
import type { Store } from '../store/store.ts';
import type { Tool } from '../tools/tool.ts';
import type { PriceTable } from '../usage/model-prices.ts';
import { type AgentHooks, createAgentHooks, type RunContext } from './agent-hooks.ts';
import { type ApprovalDecision, type ApprovalRecord, Approvals } from './approvals.ts';
import { BudgetMeter, type RunBudget, runBudget } from './budget.ts';
import { streamEvents } from './event-queue.ts';
import type { AgentEvent, RunResult, StopReason, ToolCallRecord } from './events.ts';
import { addUsage, emptyUsage, type Message, type ToolCall, type Usage } from './messages.ts';
import { callModel, type OutputCheck } from './model-call.ts';
import { callsInFlight, outcomeUnknown, type RunResume, splitSession } from './resume.ts';
import type { Sessions } from './sessions.ts';
import { type AgentHandle, type AgentSpec, DEFAULT_MAX_STEPS } from './spec.ts';
import { activeContext, failSpan, startSpan } from './telemetry.ts';
import type { RunToolCall } from './tool-pipeline.ts';
import { type RunInteraction, runToolCalls, type ToolRunnerDeps, toMessage } from './tool-runner.ts';

/** The kernel's handle on an agent's tool set (not part of the public API). */
export const SET_TOOLS = Symbol('hubos.agent.setTools');

/** One tool set, in the three shapes a run needs. */
interface Toolset {
  tools: readonly Tool[];
  map: ReadonlyMap<string, Tool>;
  definitions: ToolDefinition[];
}

function toolset(tools: readonly Tool[]): Toolset {
  return {
    tools: [...tools],
    map: new Map(tools.map((tool) => [tool.name, tool])),
    definitions: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  };
}

export interface RunOptions {
  /** Continue (and extend) this conversation; without one the run starts from nothing and is not stored. */
  sessionId?: string;
  signal?: AbortSignal;
  maxSteps?: number;
  /** The run's id (default: a random UUID); HubOS passes its run record's, so the two match. */
  runId?: string;
  /**
   * Who the run is for: the id of the caller that started it (HubOS passes the API key's principal).
   * Recorded with the run's approvals and given to its tools as `tc.principal`, so data a tool keeps
   * can be kept per caller.
   */
  principal?: string;
  /**
   * Which end user of the principal the run is for, when one key serves many (an app's own user
   * id). Memory (working memory, recall) is kept per principal and user; a new session is filed
   * under it. Without one, the principal's runs share one memory.
   */
  userId?: string;
  /**
   * Where the run was started (`rest`, `mcp`, `stars`, `workflow`, `subagent`…): kernel tool-call
   * hooks see it as each call's `via`, so one audit tap tells the surfaces apart. Default `direct`.
   */
  via?: CallSurface;
  /**
   * Tools the caller runs itself (an AG-UI client's, say): the model sees them beside the agent's
   * own; when it calls one, the run ends after that step with stopReason `client-tool` and the
   * calls in `result.pendingToolCalls`, for the caller to answer with `toolResults` next run.
   */
  clientTools?: readonly ToolDefinition[];
  /** Answers to the calls the session's last run left pending: added before `input`, which may then be ''. */
  toolResults?: readonly Extract<Message, { role: 'tool' }>[];
  /**
   * Where the run's tools' questions go instead of the run itself: `elicit` in place of an approval
   * request of this run, `sample` in place of its model. A sub-agent's run passes its caller's
   * (`tc.elicit` / `tc.sample` of the `task` call), so its tools ask the calling run's human.
   */
  interaction?: RunInteraction;
  /**
   * `false` when nobody reads the text as it comes (HubOS's JSON answer): each model call may then
   * answer whole (`ModelRequest.stream: false`). Events are the same; a step's text is one delta.
   */
  streaming?: boolean;
  /**
   * Called, and awaited, with the run's messages not yet given to it: after a model answer that asks
   * for tools (before they run) and after those tools (before the next model call). The run engine
   * keeps them, so that another instance can resume the run if this one dies.
   */
  checkpoint?: (entry: RunCheckpoint) => Promise<void>;
  /** Continues an earlier attempt of this run (same `runId`) from the messages its checkpoints kept. */
  resume?: RunResume;
  /**
   * Runs on this model instead of the agent's (a reference, `'openai:gpt-4.1-mini'`), resolved by
   * the kernel's model registry: its `run-start` event and its model calls name it. A reference no
   * provider knows fails the run before it starts (MODEL_NOT_FOUND).
   */
  model?: string;
  /**
   * Limits on this run (steps, tokens, cost, time), each tightening its agent's `budget`: past one
   * the run fails with BUDGET_EXCEEDED naming it. A caller can lower its agent's limits, not raise them.
   */
  budget?: RunBudget;
}

/** What `RunOptions.checkpoint` is given: the messages that step `step` added since the last one. */
export interface RunCheckpoint {
  step: number;
  messages: Message[];
}

/**
 * What the kernel builds an agent from (`kernel.createAgent()` is how agents are made).
 * @internal
 */
export interface AgentDeps {
  spec: AgentSpec;
  model: LanguageModel;
  tools: readonly Tool[];
  store: Store;
  sessions: Sessions;
  /** The global `permissions` config; the spec's own rules are checked before it. */
  permissions?: PermissionsConfig;
  /** Where `ask` calls wait (the kernel's, shared by its agents); default: the agent's own. */
  approvals?: Approvals;
  /** The kernel's tool-call pipeline (`kernel.tools`): every call of its runs goes through it. */
  runToolCall: RunToolCall;
  /** The model a reference names (`RunOptions.model`): the kernel's, through its model registry. */
  resolveModel?: (ref: string) => LanguageModel;
  /**
   * Its guardrails (the config's, then its own), made at boot; none when undefined. The config's
   * tool guardrails are not here: `kernel.tools` checks them on every call.
   */
  guardrails?: StageGuardrails;
  /** Model prices (the config's `pricing` over the built-in list): a `costUsd` budget is priced by them. */
  prices?: PriceTable;
  /** `context.toolResults` as it applies to the agent; undefined: every tool result is sent whole. */
  toolResults?: ToolResultsLimits;
  /** Its compaction (`context.compaction`), when on: older turns summarized near the context window. */
  compaction?: Compaction;
}

/** An agent: a model, instructions and tools, run in a loop until the model answers without tools. */
export class Agent implements AgentHandle {
  readonly id: string;
  readonly spec: AgentSpec;
  readonly hooks: AgentHooks = createAgentHooks();
  readonly model: LanguageModel;
  /** The permission policy of its tool calls: its template's rules, then the config's. */
  readonly policy: Policy;
  readonly approvals: Approvals;
  readonly #deps: AgentDeps;
  #toolset: Toolset;
  readonly #running = new Set<AbortController>();

  /** @internal */
  constructor(deps: AgentDeps) {
    this.#deps = deps;
    this.id = deps.spec.name;
    this.spec = deps.spec;
    this.model = deps.model;
    this.policy = createPolicy(deps.permissions, deps.spec.permissions);
    this.approvals = deps.approvals ?? new Approvals(deps.store);
    this.#toolset = toolset(deps.tools);
  }

  /** The tools it may call now; the kernel refreshes them when the registry changes. */
  get tools(): readonly Tool[] {
    return this.#toolset.tools;
  }

  /**
   * Kernel-internal: gives the agent a new tool set; runs already going keep the one they started with.
   * @internal
   */
  [SET_TOOLS](tools: readonly Tool[]): void {
    this.#toolset = toolset(tools);
  }

  /** `provider:model` of the model in use. */
  get modelRef(): string {
    return modelRefOf(this.model);
  }

  /** The model of a run and how its events name it: the agent's own, or the one `RunOptions.model` names. */
  #modelOf(ref: string | undefined): RunModel {
    if (ref === undefined || ref === this.modelRef) return { model: this.model, ref: this.modelRef };
    if (typeof ref !== 'string' || ref === '')
      throw new HubosError(
        'AGENT_INVALID',
        `agent "${this.id}": model must be a model reference such as 'openai:gpt-4.1-mini'`,
      );
    if (!this.#deps.resolveModel)
      throw new HubosError(
        'MODEL_NOT_FOUND',
        `agent "${this.id}" cannot run on model "${ref}": it was not made by a kernel, which resolves model references`,
      );
    return { model: this.#deps.resolveModel(ref), ref };
  }

  /**
   * Runs to the end. Resolves when completed or cancelled; rejects with a HubosError when the run
   * fails (its `details.result` holds the run). `onEvent` sees each event as `stream()` would yield it.
   */
  run(
    input: string,
    options: RunOptions & { onEvent?: (event: AgentEvent) => void } = {},
  ): Promise<RunResult> {
    // Not an async function: a run holds an async frame for as long as it runs, and #start has one.
    return this.#start(input, options, options.onEvent ?? (() => undefined)).then((result) => {
      if (result.status === 'failed') {
        const code = result.error!.code as HubosErrorCode;
        throw new HubosError(code, result.error!.message, { details: { result } });
      }
      return result;
    });
  }

  /** The run's events as they happen; stopping the iteration early cancels the run. */
  stream(input: string, options: RunOptions = {}): AsyncGenerator<AgentEvent, void, undefined> {
    return streamEvents<AgentEvent>(options.signal, (signal, push) =>
      this.#start(input, { ...options, signal }, push),
    );
  }

  /**
   * Answers an `approval-request` of one of its runs: an approved call runs, a denied one tells the
   * model `denied by the user: <reason>`. Resolves with the decided record; throws
   * `APPROVAL_NOT_FOUND`, `APPROVAL_DECIDED`, or `RUN_NOT_RUNNING` (see `Approvals.decide`).
   */
  approve(runId: string, callId: string, decision: ApprovalDecision): Promise<ApprovalRecord> {
    return this.approvals.decide(runId, callId, decision, { agent: this.id });
  }

  /** Cancels every running run (used when the agent is destroyed). */
  cancelAll(reason = 'the agent was destroyed'): void {
    for (const controller of this.#running) controller.abort(new HubosError('RUN_CANCELLED', reason));
  }

  async #start(input: string, options: RunOptions, emit: (event: AgentEvent) => void): Promise<RunResult> {
    if (typeof input !== 'string' || (input.trim() === '' && !options.toolResults?.length)) {
      throw new HubosError('AGENT_INVALID', `agent "${this.id}": the input must be a non-empty string`);
    }
    if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
      throw new HubosError('AGENT_INVALID', `agent "${this.id}": runId must be a non-empty string`);
    }
    if (options.userId !== undefined && !validUserId(options.userId)) {
      throw new HubosError(
        'AGENT_INVALID',
        `agent "${this.id}": userId must be 1 to 256 characters, none of them a control character (such as NUL or a line break)`,
      );
    }
    if (options.via !== undefined && !CALL_SURFACES.includes(options.via)) {
      throw new HubosError(
        'AGENT_INVALID',
        `agent "${this.id}": via must be one of ${CALL_SURFACES.join(', ')}, got ${JSON.stringify(options.via)}`,
      );
    }
    // Resolved before the run starts: a model no provider knows is the caller's mistake, not a failed run.
    const runModel = this.#modelOf(options.model);
    const budget = runBudget(this.spec.budget, options.budget, `agent "${this.id}"`);
    const meter =
      budget &&
      new BudgetMeter(budget, this.#deps.prices ?? {}, runModel.ref, `agent "${this.id}"`, [
        ...(isFallbackModel(runModel.model) ? runModel.model.models.slice(1).map(modelRefOf) : []),
        // Summaries are priced as the model that writes them.
        ...(this.#deps.compaction ? [this.#deps.compaction.summarizerOf(runModel.ref)] : []),
      ]);
    const shadowed = options.clientTools?.find((tool) => this.#toolset.map.has(tool.name));
    if (shadowed) {
      throw new HubosError(
        'AGENT_INVALID',
        `agent "${this.id}": client tool "${shadowed.name}" shadows its own`,
      );
    }
    // Aborted by the caller's signal, or by cancelAll() through the run's own controller.
    const controller = new AbortController();
    // Forwarded by hand, not AbortSignal.any: on the run route that costs about a tenth of the
    // throughput (its dependent-signal bookkeeping), measured with the peer benchmark.
    const abort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', abort, { once: true });
    if (options.signal?.aborted) abort();
    this.#running.add(controller);
    // The time budget stops the run as a cancel would, with BUDGET_EXCEEDED as the reason.
    const started = Date.now();
    const clock =
      meter?.timeMs !== undefined
        ? setTimeout(() => controller.abort(meter.outOfTime(Date.now() - started)), meter.timeMs)
        : undefined;
    try {
      return await this.#loop(input, options, runModel, controller.signal, emit, meter);
    } finally {
      clearTimeout(clock);
      this.#running.delete(controller);
      options.signal?.removeEventListener('abort', abort);
    }
  }

  async #loop(
    input: string,
    options: RunOptions,
    { model, ref: modelRef }: RunModel,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
    meter: BudgetMeter | undefined,
  ): Promise<RunResult> {
    const { sessions } = this.#deps;
    // The run keeps the tools it started with, whatever the registry does meanwhile.
    const tools = this.#toolset;
    const run: RunContext = {
      runId: options.runId ?? randomUUID(),
      agent: this.id,
      sessionId: options.sessionId,
      ...(options.principal !== undefined ? { principal: options.principal } : {}),
      ...(options.userId !== undefined ? { userId: options.userId } : {}),
      ...(options.via !== undefined ? { via: options.via } : {}),
      input,
      signal,
    };
    const { span, ctx: spanCtx } = startSpan(
      `invoke_agent ${this.id}`,
      {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': this.id,
        'gen_ai.agent.id': this.id,
        ...(options.sessionId ? { 'gen_ai.conversation.id': options.sessionId } : {}),
        'gen_ai.request.model': model.modelId,
      },
      activeContext(),
    );
    const maxSteps = options.maxSteps ?? this.spec.maxSteps ?? DEFAULT_MAX_STEPS;
    const { resume } = options;
    // The run's own messages: a resumed run's kept ones, else the caller's tool results and input.
    const added: Message[] = resume
      ? [...resume.messages]
      : [
          ...(options.toolResults ?? []),
          ...(input.trim() !== '' ? [{ role: 'user' as const, content: input }] : []),
        ];
    // Made only for a run with client tools: most runs have none.
    const clientNames = options.clientTools?.length
      ? new Set(options.clientTools.map((tool) => tool.name))
      : undefined;
    let definitions = options.clientTools?.length
      ? [...tools.definitions, ...options.clientTools]
      : tools.definitions;
    let pendingToolCalls: ToolCall[] = [];
    const toolCalls: ToolCallRecord[] = [];
    let usage = emptyUsage();
    let steps = 0;
    let stopReason: StopReason = 'max-steps';
    let text = '';
    let afterRunCalled = false;
    // How many of `added` the session holds, and how many the run's checkpoints were given.
    let persisted = 0;
    let kept = resume ? added.length : 0;
    const persist = async () => {
      if (options.sessionId !== undefined && added.length > persisted)
        await sessions.append(
          this.id,
          options.sessionId,
          added.slice(persisted),
          options.principal,
          options.userId,
        );
      persisted = added.length;
    };
    const checkpoint = async (step: number, inStep: readonly Message[]) => {
      if (!options.checkpoint) return;
      const messages = [...added.slice(kept), ...inStep];
      kept = added.length + inStep.length;
      await options.checkpoint({ step, messages });
    };
    const result = (status: RunResult['status'], error?: RunResult['error']): RunResult => ({
      runId: run.runId,
      agent: this.id,
      ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
      status,
      stopReason,
      text,
      messages: added,
      toolCalls,
      usage,
      steps,
      ...(pendingToolCalls.length > 0 ? { pendingToolCalls } : {}),
      ...(error ? { error } : {}),
    });
    // Tokens the run spent, priced (for a cost budget) as the model `by` that spent them.
    const spend = (more: Partial<Usage> | undefined, by: string) => {
      usage = addUsage(usage, more);
      meter?.note(by, more);
    };
    // Tokens a tool spent (a sub-agent's) count as this run's.
    const toolDeps: ToolRunnerDeps = {
      ...this.#toolDeps(tools.map, model),
      ...(options.interaction ? { interaction: options.interaction } : {}),
      // A sub-agent's tokens are priced as the run's model's: its own model is not told here.
      addUsage: (more: Partial<Usage>) => spend(more, modelRef),
    };
    // Results too large for the model are kept whole; from the first, the model may read them.
    const { toolResults } = this.#deps;
    const large = toolResults && new LargeResults(this.#deps.store, toolResults, run, modelRef);
    const offerReadResult = () => {
      const offered = withReadResult({ definitions, map: toolDeps.tools });
      definitions = offered.definitions;
      toolDeps.tools = offered.map;
      toolDeps.runTools = RUN_TOOLS;
    };
    // A step's tools have answered: kept, stored in the session, reported.
    const finishStep = async (step: number, calls: readonly ToolCall[], records: ToolCallRecord[]) => {
      const messages = large
        ? await large.shorten(records.map(toMessage), offerReadResult)
        : records.map(toMessage);
      toolCalls.push(...records);
      if (calls.length > 0) await checkpoint(step, messages);
      added.push(...messages);
      await persist();
    };

    if (!resume)
      emit({
        type: 'run-start',
        runId: run.runId,
        agent: this.id,
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
        model: modelRef,
      });
    try {
      const { guardrails } = this.#deps;
      // Only a run with guardrails builds what their checks are told: most runs have none.
      const guarded: Omit<GuardrailContext, 'stage'> | undefined = guardrails && {
        agent: this.id,
        runId: run.runId,
        principal: options.principal,
        via: options.via,
        signal,
        model,
        ...(this.#deps.resolveModel ? { resolveModel: this.#deps.resolveModel } : {}),
      };
      // The user's message is checked before the session keeps it; its verdicts belong to the first
      // model step. A run resumed before its first answer was kept starts again from the message
      // as its caller gave it: checked again (the session then matches what the first attempt kept).
      const firstTurn = !resume?.messages.some((message) => message.role === 'assistant');
      // The verdicts of the model step going on, told on its `step-finish` (a trip's on its `guardrail` event).
      let verdicts: GuardrailVerdictRecord[] | undefined;
      if (guardrails?.input.length && firstTurn && input.trim() !== '')
        verdicts = await this.#checkInput(guardrails, guarded!, run, 1, added, emit);
      const output: OutputCheck | undefined = guardrails?.output.length
        ? {
            guardrails: guardrails.output,
            ctx: guarded!,
            onVerdicts: (said) => {
              verdicts = verdicts ? [...verdicts, ...said] : said;
            },
          }
        : undefined;
      let history: Message[] = [];
      if (options.sessionId !== undefined) {
        const session = await sessions.load(this.id, options.sessionId);
        if (resume) {
          const split = splitSession(session, added);
          history = split.history;
          persisted = split.persisted;
        } else history = session;
      }
      if (large && (holdsCutResult(history) || holdsCutResult(added))) offerReadResult();
      // The run's own input (a task, a prompt) stays verbatim whatever is summarized around it.
      const compaction = this.#deps.compaction?.start({
        runId: run.runId,
        sessionId: options.sessionId,
        principal: options.principal,
        model,
        modelRef,
        pinned: input.trim() !== '' ? added.find((message) => message.role === 'user') : undefined,
        signal,
        emit,
        addUsage: spend,
      });
      const inFlight = resume ? callsInFlight(added) : [];
      steps = added.filter((message) => message.role === 'assistant').length;
      // The finished steps of an earlier attempt reach the session now; the one in flight when it ends.
      if (inFlight.length > 0) {
        const open = added.pop()!;
        await persist();
        added.push(open);
      } else await persist();
      if (this.hooks.beforeRun.isUsed()) await this.hooks.beforeRun.promise(run);
      if (inFlight.length > 0) {
        // The calls the dead instance was making: run again those that surely had not started or
        // may run twice; the model hears that the others' outcome is unknown.
        const step = steps;
        const again = inFlight.filter(
          (call) => resume?.rerun?.has(call.id) || tools.map.get(call.name)?.idempotent === true,
        );
        const ran = again.length
          ? (
              await runToolCalls(
                toolDeps,
                { ...run, resumedCalls: resume?.rerun },
                step,
                again,
                spanCtx,
                emit,
              )
            ).records
          : [];
        const records = inFlight.map((call) => {
          const record = ran.find((done) => done.id === call.id);
          if (record) return record;
          const unknown = outcomeUnknown(call);
          emit({ type: 'tool-result', runId: run.runId, step, call: unknown });
          return unknown;
        });
        await finishStep(step, inFlight, records);
        emit({
          type: 'step-finish',
          runId: run.runId,
          step,
          finishReason: 'tool-calls',
          usage: emptyUsage(),
        });
      }
      while (steps < maxSteps) {
        signal.throwIfAborted();
        // Checked before each model call: a call in flight finishes and its tools run; the next does not start.
        meter?.beforeStep(steps + 1, usage);
        steps++;
        const step = steps;
        emit({ type: 'step-start', runId: run.runId, step });
        const request: ModelRequest = {
          ...(this.spec.instructions ? { system: this.spec.instructions } : {}),
          messages: compaction
            ? await compaction.messages(step, [...history, ...added], {
                system: this.spec.instructions,
                tools: definitions,
              })
            : [...history, ...added],
          tools: definitions,
          signal,
          ...(this.spec.maxTokens ? { maxTokens: this.spec.maxTokens } : {}),
          ...(this.spec.temperature !== undefined ? { temperature: this.spec.temperature } : {}),
          ...(options.streaming === false ? { stream: false } : {}),
        };
        // After a failover the answer is the fallback's: a cost budget prices it as that model.
        let answeredBy = modelRef;
        const noteRetry = (event: AgentEvent) => {
          if (event.type === 'model-retry') answeredBy = event.next;
          emit(event);
        };
        const response = await callModel(
          this.hooks,
          model,
          { run, step, request },
          meter ? noteRetry : emit,
          spanCtx,
          output,
        ).catch((error: unknown) => {
          // The answer's trip: its verdicts (the user's message's first, in the first step) as its event.
          if (error instanceof GuardrailTripped)
            emit(tripEvent(run.runId, step, 'output', verdicts ?? error.verdicts));
          throw error;
        });
        spend(response.usage, answeredBy);
        text = response.message.content || text;
        const calls = response.message.toolCalls ?? [];
        // Client tools are not run here: the caller runs them and answers next run.
        pendingToolCalls = clientNames ? calls.filter((call) => clientNames.has(call.name)) : [];
        const serverCalls = clientNames ? calls.filter((call) => !clientNames.has(call.name)) : [...calls];
        // Kept before the tools run: an instance resuming the run knows which calls were in flight.
        if (serverCalls.length > 0) {
          await checkpoint(step, [response.message]);
          // A cancel that came while it was kept: no tool starts after it.
          signal.throwIfAborted();
        }
        added.push(response.message);
        const outcome =
          serverCalls.length > 0
            ? await runToolCalls(
                toolDeps,
                run,
                step,
                serverCalls,
                spanCtx,
                verdicts ? tellHeld(emit, verdicts) : emit,
              )
            : { records: [] };
        await finishStep(step, serverCalls, outcome.records);
        emit({
          type: 'step-finish',
          runId: run.runId,
          step,
          finishReason: response.finishReason,
          usage: response.usage,
          ...(verdicts ? { guardrails: verdicts } : {}),
        });
        verdicts = undefined;
        if (calls.length === 0) {
          stopReason = response.finishReason;
          break;
        }
        if (pendingToolCalls.length > 0) {
          stopReason = 'client-tool';
          break;
        }
        signal.throwIfAborted();
      }
      const done = result('completed');
      span.setAttributes({
        'gen_ai.usage.input_tokens': usage.inputTokens,
        'gen_ai.usage.output_tokens': usage.outputTokens,
      });
      afterRunCalled = true;
      if (this.hooks.afterRun.isUsed()) await this.hooks.afterRun.promise({ run, result: done });
      emit({ type: 'run-finish', runId: run.runId, result: done });
      return done;
    } catch (thrown) {
      // A run stopped by its clock fails with the budget's error, not as cancelled.
      const outOfTime = signal.aborted && HubosError.is(signal.reason, 'BUDGET_EXCEEDED');
      const error = outOfTime ? signal.reason : thrown;
      if (signal.aborted && !outOfTime) {
        stopReason = 'cancelled';
        const cancelled = result('cancelled');
        span.setAttribute('hubos.run.status', 'cancelled');
        // afterRun sees every outcome (once); a tap failing here cannot change it.
        if (!afterRunCalled && this.hooks.afterRun.isUsed())
          await this.hooks.afterRun.promise({ run, result: cancelled }).catch(() => undefined);
        emit({ type: 'run-finish', runId: run.runId, result: cancelled });
        return cancelled;
      }
      stopReason = HubosError.is(error, 'BUDGET_EXCEEDED') ? 'budget' : 'error';
      const failure = {
        code: HubosError.is(error) ? error.code : 'RUN_FAILED',
        message: errorMessage(error),
      };
      failSpan(span, error);
      const failed = result('failed', failure);
      if (!afterRunCalled && this.hooks.afterRun.isUsed())
        await this.hooks.afterRun.promise({ run, result: failed }).catch(() => undefined);
      emit({ type: 'run-error', runId: run.runId, error: failure, result: failed });
      return failed;
    } finally {
      span.end();
    }
  }

  /**
   * The user's message through the input guardrails, before the model, the session or the result
   * see it: a rewrite replaces it. Returns their verdicts, which belong to the run's first model
   * step; a trip's are told as its `guardrail` event.
   */
  async #checkInput(
    guardrails: StageGuardrails,
    ctx: Omit<GuardrailContext, 'stage'>,
    run: RunContext,
    step: number,
    added: Message[],
    emit: (event: AgentEvent) => void,
  ): Promise<GuardrailVerdictRecord[]> {
    const at = added.findLastIndex((message) => message.role === 'user');
    try {
      const { value, verdicts } = await runGuardrails(guardrails.input, run.input, {
        ...ctx,
        stage: 'input',
      });
      if (value === run.input) return verdicts;
      if (typeof value !== 'string')
        throw new HubosError(
          'GUARDRAIL_INVALID',
          'an input guardrail rewrote the message to something that is not text',
        );
      run.input = value;
      if (at !== -1) added[at] = { role: 'user', content: value };
      return verdicts;
    } catch (error) {
      if (error instanceof GuardrailTripped) emit(tripEvent(run.runId, step, 'input', error.verdicts));
      throw error;
    }
  }

  #toolDeps(tools: ReadonlyMap<string, Tool>, model: LanguageModel): ToolRunnerDeps {
    return {
      ...(this.#deps.guardrails?.toolInput.length || this.#deps.guardrails?.toolOutput.length
        ? { guardrails: { input: this.#deps.guardrails.toolInput, output: this.#deps.guardrails.toolOutput } }
        : {}),
      runToolCall: this.#deps.runToolCall,
      hooks: this.hooks,
      policy: this.policy,
      tools,
      agentId: this.id,
      metadata: this.spec.metadata ?? {},
      model,
    };
  }
}

/**
 * The run's `emit` for a step's tool calls while the step holds verdicts not told yet (the user's
 * message's, the answer's): a tool's trip tells them first, as the step they belong to fails.
 */
function tellHeld(emit: (event: AgentEvent) => void, held: GuardrailVerdictRecord[]) {
  return (event: AgentEvent) =>
    emit(event.type === 'guardrail' ? { ...event, verdicts: [...held, ...event.verdicts] } : event);
}

/** 1 to 256 characters, no control character: PostgreSQL's text refuses NUL, so the session's write would fail after the answer. */
function validUserId(userId: unknown): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  return typeof userId === 'string' && userId.length <= 256 && /^[^\u0000-\u001f\u007f]+$/.test(userId);
}

/** A run's model, and the reference its events and steps name it by. */
interface RunModel {
  model: LanguageModel;
  ref: string;
}
