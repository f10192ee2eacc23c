import type { HubosErrorCode } from '../errors.ts';
import type { GuardrailStage, GuardrailVerdictRecord } from '../guardrails/guardrail.ts';
import type { FinishReason } from '../model/model.ts';
import type { ToolContent } from '../tools/content.ts';
import type { LogLevel } from '../tools/interaction.ts';
import type { ApprovalQuestion } from './approvals.ts';
import type { Message, ToolCall, Usage } from './messages.ts';

export type RunStatus = 'completed' | 'cancelled' | 'failed';
/** Why the loop ended: the model's own reason, or the loop's (`max-steps`, `cancelled`, `error`). */
export type StopReason = FinishReason | 'max-steps' | 'client-tool' | 'cancelled' | 'error' | 'budget';

export interface ToolCallRecord extends ToolCall {
  ok: boolean;
  /** The handler's output when ok (a rich result's structured data, or its parts in words). */
  output?: unknown;
  /** A rich result's parts (`toolOutput`): text, images, audio, resources, as MCP carries them. */
  content?: ToolContent[];
  error?: { code: string; message: string };
  durationMs: number;
  /** What the permission policy said of the call, when one of its rules matched. */
  permission?: { decision: 'allow' | 'ask' | 'deny'; rule?: string };
}

export interface RunResult {
  runId: string;
  agent: string;
  sessionId?: string;
  status: RunStatus;
  stopReason: StopReason;
  /** The final answer: the last assistant text. */
  text: string;
  /** Messages this run added to the conversation (user input included). */
  messages: Message[];
  toolCalls: ToolCallRecord[];
  usage: Usage;
  steps: number;
  /** Client tool calls the run stopped at (stopReason `client-tool`), for the caller to answer. */
  pendingToolCalls?: ToolCall[];
  error?: { code: HubosErrorCode | string; message: string };
}

/**
 * A call the permission policy says to `ask` about: the run waits at it (its other calls go on)
 * until `agent.approve(runId, callId, { approved })`, or `expiresAt` passes and it is denied.
 */
export interface ApprovalRequestEvent {
  type: 'approval-request';
  runId: string;
  step: number;
  callId: string;
  tool: string;
  /** The input the tool would run with (validated, defaults applied). */
  input: unknown;
  permissions: string[];
  /** The policy pattern that asked. */
  rule?: string;
  /** Set when the tool asks the human a question (`tc.elicit`): answer with the fields, or deny to decline. */
  question?: ApprovalQuestion;
  expiresAt: string;
}

/** How an approval request ended; the call's `tool-result` follows. */
export interface ApprovalResultEvent {
  type: 'approval-result';
  runId: string;
  step: number;
  callId: string;
  tool: string;
  approved: boolean;
  status: 'approved' | 'denied' | 'expired' | 'cancelled';
  reason?: string;
  /** The answer to the request's question, when it carried one and was approved. */
  answer?: Record<string, unknown>;
  /** Who decided (a principal's id), when the decision said so. */
  decidedBy?: string;
  /** When it was decided (or expired, or was cancelled). */
  decidedAt?: string;
  /** It was a tool's question (`tc.elicit`), not a permission. */
  question?: boolean;
}

/** Something a running tool logged (`tc.log`), emitted while the call runs. */
export interface ToolLogEvent {
  type: 'tool-log';
  runId: string;
  step: number;
  callId: string;
  tool: string;
  level: LogLevel;
  message: string;
  data?: unknown;
}

/**
 * Something a running tool call reported through `tc.progress(data)` (a sub-agent's events, say),
 * emitted while the call runs, before its `tool-result`.
 */
export interface ToolProgressEvent {
  type: 'tool-progress';
  runId: string;
  step: number;
  callId: string;
  tool: string;
  data: unknown;
}

/**
 * A guardrail tripped: the run stops, its `run-error` (GUARDRAIL_TRIPPED) follows. `verdicts`: those
 * of the check that tripped, the trip last, after those of its step or call not told yet (the
 * user's message's before the first answer's; a call's `tool-input` before its `tool-output`).
 * Verdicts that let a value through ride on `step-finish` and `tool-result`.
 */
export interface GuardrailEvent {
  type: 'guardrail';
  runId: string;
  /** The model turn it belongs to (the user's message: the first). */
  step: number;
  /** The stage whose check tripped. */
  stage: GuardrailStage;
  /** At `tool-*`: the call's id. */
  callId?: string;
  /** The verdicts not told before, the trip last. */
  verdicts: GuardrailVerdictRecord[];
}

/**
 * A model call failed and is tried again: on the same model after `delayMs` (a 429, a 5xx, a
 * dropped stream), or on the next model of its fallback chain (`next` differs from `model`).
 */
export interface ModelRetryEvent {
  type: 'model-retry';
  runId: string;
  step: number;
  /** The model that failed (`provider:model`). */
  model: string;
  /** 1 for the first retry of this model. */
  attempt: number;
  reason: { code: string; message: string; status?: number };
  delayMs: number;
  /** The model tried next: the same on a retry, the fallback on a failover. */
  next: string;
}

/**
 * The older part of the conversation was summarized before step `step`'s model call, as its request
 * neared the context window: `through` messages (of the session's history, then the run's own) now
 * stand as one summary, written by `model`. Tokens are the request's before and after.
 */
export interface CompactionEvent {
  type: 'compaction';
  runId: string;
  step: number;
  tokensBefore: number;
  tokensAfter: number;
  through: number;
  model: string;
}

/** What `agent.stream()` yields, as it happens. */
export type AgentEvent =
  | { type: 'run-start'; runId: string; agent: string; sessionId?: string; model: string }
  | { type: 'step-start'; runId: string; step: number }
  | { type: 'text-delta'; runId: string; step: number; delta: string }
  | { type: 'tool-call-start'; runId: string; step: number; id: string; name: string }
  | { type: 'tool-call-args'; runId: string; step: number; id: string; delta: string }
  | { type: 'tool-call-end'; runId: string; step: number; id: string; name: string; input: unknown }
  | ApprovalRequestEvent
  | ApprovalResultEvent
  | ToolProgressEvent
  | ToolLogEvent
  | GuardrailEvent
  | ModelRetryEvent
  | CompactionEvent
  | {
      type: 'tool-result';
      runId: string;
      step: number;
      call: ToolCallRecord;
      /** The call's guardrail verdicts (`tool-input`, then `tool-output`), when it has guardrails. */
      guardrails?: GuardrailVerdictRecord[];
    }
  | {
      type: 'step-finish';
      runId: string;
      step: number;
      finishReason: FinishReason;
      usage: Usage;
      /** The step's guardrail verdicts: the first step's the user's message's, then the answer's. */
      guardrails?: GuardrailVerdictRecord[];
    }
  | { type: 'run-finish'; runId: string; result: RunResult }
  | { type: 'run-error'; runId: string; error: { code: string; message: string }; result: RunResult };

export type AgentEventType = AgentEvent['type'];
