import type { Message } from '../agent/messages.ts';

/**
 * Where the summarized part of `messages` may end (exclusive) so that the last `keepTurns` turns
 * stay verbatim: at the start of a turn (a user message), or, in a run that is one long turn (a
 * sub-agent's task, a workflow step's prompt), at the start of a step (an assistant message). Never
 * at a tool result, so a tool call and its result are never parted. Undefined when nothing past
 * `from` (what is summarized already) can go.
 */
export function cutPoint(messages: readonly Message[], from: number, keepTurns: number): number | undefined {
  const turns = startsOf(messages, 'user');
  if (turns.length > keepTurns) {
    const cut = turns[turns.length - keepTurns]!;
    if (cut > from) return cut;
  }
  const steps = startsOf(messages, 'assistant');
  if (steps.length > keepTurns) {
    const cut = steps[steps.length - keepTurns]!;
    if (cut > from) return cut;
  }
  return undefined;
}

function startsOf(messages: readonly Message[], role: 'user' | 'assistant'): number[] {
  const at: number[] = [];
  for (let i = 0; i < messages.length; i++) if (messages[i]!.role === role) at.push(i);
  return at;
}
