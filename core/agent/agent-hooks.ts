import { AsyncSeriesBailHook, AsyncSeriesHook } from 'tapable';
import { createWrapHook } from '../hook-utils.ts';
import type { TapMeta } from '../hooks.ts';
import type { FinishReason, ModelRequest } from '../model/model.ts';
import type { ToolResult } from '../tools/execute.ts';
import type { RunResult } from './events.ts';
import type { Message, ToolCall, Usage } from './messages.ts';

export interface RunContext {
  runId: string;
  agent: string;
  sessionId: string | undefined;
  input: string;
  signal: AbortSignal;
}

export interface ModelCallContext {
  run: RunContext;
  step: number;
  /** Mutable in `beforeModelCall`: what is sent to the model. */
  request: ModelRequest;
}

export interface ModelResponse {
  message: Extract<Message, { role: 'assistant' }>;
  finishReason: FinishReason;
  usage: Usage;
}

export interface ToolCallContext {
  run: RunContext;
  step: number;
  call: ToolCall;
}

/** What a `beforeToolCall` tap may decide instead of running the tool. */
export type ToolCallDecision = { deny: string } | { result: unknown };

/** The hooks of one agent: fresh per agent, freed with it. `wrap*` taps compose, earliest outermost. */
export function createAgentHooks() {
  return Object.freeze({
    beforeRun: new AsyncSeriesHook<[RunContext], TapMeta>(['run']),
    beforeModelCall: new AsyncSeriesHook<[ModelCallContext], TapMeta>(['call']),
    wrapModelCall: createWrapHook<ModelCallContext, ModelResponse>('call'),
    afterModelCall: new AsyncSeriesHook<[ModelCallContext & { response: ModelResponse }], TapMeta>(['call']),
    /** Bail: return `{ deny: reason }` or `{ result }` to skip the tool; nothing to let it run. */
    beforeToolCall: new AsyncSeriesBailHook<[ToolCallContext], ToolCallDecision | undefined, TapMeta>([
      'call',
    ]),
    wrapToolCall: createWrapHook<ToolCallContext, ToolResult>('call'),
    afterToolCall: new AsyncSeriesHook<[ToolCallContext & { result: ToolResult }], TapMeta>(['call']),
    toolError: new AsyncSeriesHook<[ToolCallContext & { error: { code: string; message: string } }], TapMeta>(
      ['call'],
    ),
    /** Every run's end, completed, cancelled or failed (see `result.status`). */
    afterRun: new AsyncSeriesHook<[{ run: RunContext; result: RunResult }], TapMeta>(['context']),
  });
}

export type AgentHooks = ReturnType<typeof createAgentHooks>;
