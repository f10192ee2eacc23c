import type { ToolCallRecord } from './events.ts';
import type { Message, ToolCall } from './messages.ts';

/**
 * How a run continues after the instance running it died: the messages its model and tool calls
 * had added (kept by the run engine as each outcome was known), and the calls in flight whose tool
 * had certainly not started (they were waiting for an approval), which run again.
 */
export interface RunResume {
  messages: readonly Message[];
  /** Calls in flight that never started: asked again (their stored approval is adopted) and run. */
  rerun?: ReadonlySet<string>;
}

/**
 * Splits a session loaded for a resumed run into what came before the run and how many of the run's
 * own messages it already holds: the session ends with a prefix of them (the run appended each
 * finished step), so the longest such prefix is the part already there.
 */
export function splitSession(
  session: readonly Message[],
  own: readonly Message[],
): { history: Message[]; persisted: number } {
  const same = (a: Message, b: Message) => JSON.stringify(a) === JSON.stringify(b);
  for (let count = Math.min(own.length, session.length); count > 0; count--) {
    const start = session.length - count;
    let matches = true;
    for (let i = 0; i < count && matches; i++) matches = same(session[start + i]!, own[i]!);
    if (matches) return { history: session.slice(0, start), persisted: count };
  }
  return { history: [...session], persisted: 0 };
}

/** The tool calls of the run's last model answer that have no result yet: they were in flight. */
export function callsInFlight(own: readonly Message[]): ToolCall[] {
  const last = own.at(-1);
  if (last?.role !== 'assistant' || !last.toolCalls?.length) return [];
  return last.toolCalls;
}

/**
 * The result of a call that was in flight when its instance died and may not run again (its tool
 * does not declare itself idempotent): the model is told that nobody knows whether it took effect.
 */
export function outcomeUnknown(call: ToolCall): ToolCallRecord {
  return {
    ...call,
    ok: false,
    error: {
      code: 'TOOL_OUTCOME_UNKNOWN',
      message: `the instance running "${call.name}" stopped before the call reported, so it may or may not have taken effect; it was not run again because the tool does not declare itself idempotent. Check its effect before calling it again.`,
    },
    durationMs: 0,
  };
}
