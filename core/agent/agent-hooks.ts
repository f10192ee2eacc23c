import { AsyncSeriesBailHook, AsyncSeriesHook } from 'tapable';
import type { CallSurface } from '../call-surface.ts';
import { createWrapHook, type WrapHook } from '../hook-utils.ts';
import type { TapMeta } from '../hooks.ts';
import type { FinishReason, ModelRequest } from '../model/model.ts';
import type { ToolResult } from '../tools/execute.ts';
import type { RunResult } from './events.ts';
import type { Message, ToolCall, Usage } from './messages.ts';

/** One run, as hooks see it; `signal` aborts when the run is cancelled. */
export interface RunContext {
  runId: string;
  agent: string;
  sessionId: string | undefined;
  /** Who the run is for (`RunOptions.principal`), when its caller said. */
  principal?: string;
  /** Which end user of the principal the run is for (`RunOptions.userId`), when its caller said. */
  userId?: string;
  /** Where the run was started (`RunOptions.via`), when its caller said. */
  via?: CallSurface;
  input: string;
  signal: AbortSignal;
  /**
   * In a run resumed after its instance died: the calls in flight that had not started. Their
   * stored approval is adopted (still pending: waited for; decided meanwhile: acted on), not asked anew.
   */
  resumedCalls?: ReadonlySet<string> | undefined;
}

/** One model call of a run: what `beforeModelCall`, `wrapModelCall` and `afterModelCall` taps get. */
export interface ModelCallContext {
  run: RunContext;
  step: number;
  /** Mutable in `beforeModelCall`: what is sent to the model. */
  request: ModelRequest;
}

/** What one model call gave: the assistant message, why it stopped, and the tokens spent. */
export interface ModelResponse {
  message: Extract<Message, { role: 'assistant' }>;
  finishReason: FinishReason;
  usage: Usage;
}

/** One tool call of a run: what the tool-call hooks get. */
export interface ToolCallContext {
  run: RunContext;
  step: number;
  call: ToolCall;
}

/** What a `beforeToolCall` tap may decide instead of running the tool. */
export type ToolCallDecision = { deny: string } | { result: unknown };

/** What `afterModelCall` taps get: the call and the model's response. */
export interface AfterModelCallContext extends ModelCallContext {
  response: ModelResponse;
}

/** What `afterToolCall` taps get: the call and its result (an error result included). */
export interface AfterToolCallContext extends ToolCallContext {
  result: ToolResult;
}

/** What `toolError` taps get: the call and the error the model is told. */
export interface ToolErrorContext extends ToolCallContext {
  error: { code: string; message: string };
}

/** What `afterRun` taps get: the run and how it ended. */
export interface AfterRunContext {
  run: RunContext;
  result: RunResult;
}

/** The hooks of one agent: fresh per agent, freed with it. `wrap*` taps compose, earliest outermost. */
export interface AgentHooks {
  readonly beforeRun: AsyncSeriesHook<[RunContext], TapMeta>;
  readonly beforeModelCall: AsyncSeriesHook<[ModelCallContext], TapMeta>;
  readonly wrapModelCall: WrapHook<ModelCallContext, ModelResponse>;
  readonly afterModelCall: AsyncSeriesHook<[AfterModelCallContext], TapMeta>;
  /** Bail: return `{ deny: reason }` or `{ result }` to skip the tool; nothing to let it run. */
  readonly beforeToolCall: AsyncSeriesBailHook<[ToolCallContext], ToolCallDecision | undefined, TapMeta>;
  readonly wrapToolCall: WrapHook<ToolCallContext, ToolResult>;
  readonly afterToolCall: AsyncSeriesHook<[AfterToolCallContext], TapMeta>;
  readonly toolError: AsyncSeriesHook<[ToolErrorContext], TapMeta>;
  /** Every run's end, completed, cancelled or failed (see `result.status`). */
  readonly afterRun: AsyncSeriesHook<[AfterRunContext], TapMeta>;
}

/** A fresh set of agent hooks (one per agent). */
export function createAgentHooks(): AgentHooks {
  return Object.freeze({
    beforeRun: new AsyncSeriesHook<[RunContext], TapMeta>(['run']),
    beforeModelCall: new AsyncSeriesHook<[ModelCallContext], TapMeta>(['call']),
    wrapModelCall: createWrapHook<ModelCallContext, ModelResponse>('call'),
    afterModelCall: new AsyncSeriesHook<[AfterModelCallContext], TapMeta>(['call']),
    beforeToolCall: new AsyncSeriesBailHook<[ToolCallContext], ToolCallDecision | undefined, TapMeta>([
      'call',
    ]),
    wrapToolCall: createWrapHook<ToolCallContext, ToolResult>('call'),
    afterToolCall: new AsyncSeriesHook<[AfterToolCallContext], TapMeta>(['call']),
    toolError: new AsyncSeriesHook<[ToolErrorContext], TapMeta>(['call']),
    afterRun: new AsyncSeriesHook<[AfterRunContext], TapMeta>(['context']),
  });
}
