import { randomUUID } from 'node:crypto';
import {
  errorMessage,
  HubosError,
  type Message,
  type RunResult,
  type ToolCall,
  type ToolDefinition,
  type Usage,
} from '../../core/index.ts';
import { addUsage, emptyUsage } from '../../core/internal.ts';
import { STARS_ERROR_CODES } from './errors.ts';
import type { Stars, StarsRunOptions } from './stars.ts';
import {
  RoleLeader,
  RoleWorker,
  type StarsDelegation,
  type StarsEvent,
  type StarsMessage,
  type StarsRole,
  type StarsRunResult,
} from './types.ts';

export const SEND_TOOL: ToolDefinition = {
  name: 'stars_send',
  description: 'Send a message to one member of your team (it lands in their inbox).',
  inputSchema: {
    type: 'object',
    properties: { to: { type: 'string', description: 'The member id.' }, content: { type: 'string' } },
    required: ['to', 'content'],
  },
};

export const BROADCAST_TOOL: ToolDefinition = {
  name: 'stars_broadcast',
  description: 'Send a message to every other member of your team.',
  inputSchema: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
};

export const DELEGATE_TOOL: ToolDefinition = {
  name: 'stars_delegate',
  description:
    "Give tasks to workers of your team. They run concurrently; the result is each worker's answer (or its failure). Each worker sees only the task you give it, so make it self-contained.",
  inputSchema: {
    type: 'object',
    properties: {
      tasks: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          properties: { worker: { type: 'string' }, task: { type: 'string' } },
          required: ['worker', 'task'],
        },
      },
    },
    required: ['tasks'],
  },
};

type Emit = (event: StarsEvent) => void;

interface TeamRun {
  stars: Stars;
  runId: string;
  signal: AbortSignal;
  principal: string | undefined;
  emit: Emit;
  delegations: StarsDelegation[];
  messages: StarsMessage[];
  /**
   * What members sent each other in this run, by recipient: their messages stay in the run (never
   * in the shared inboxes, which any later or concurrent run, of any caller, would take).
   */
  inboxes: Map<string, StarsMessage[]>;
  usage: Record<string, Usage>;
  conversations: number;
}

type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: string };

/** Runs the team on a task: the leader's conversation, with workers run as it delegates. */
export async function runTeam(
  stars: Stars,
  task: string,
  options: StarsRunOptions,
  emit: Emit,
): Promise<StarsRunResult> {
  const outer = options.signal;
  if (typeof task !== 'string' || task.trim() === '')
    throw STARS_ERROR_CODES.create(
      'STARS_INVALID',
      `stars "${stars.name}": the task must be a non-empty string`,
    );
  const leader = stars.leader;
  if (!leader)
    throw STARS_ERROR_CODES.create(
      'STARS_NO_LEADER',
      `stars "${stars.name}" has no leader: join one with role "leader" first`,
    );
  const controller = new AbortController();
  const abort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', abort, { once: true });
  if (outer?.aborted) abort();
  const run: TeamRun = {
    stars,
    runId: randomUUID(),
    signal: controller.signal,
    principal: options.principal,
    emit,
    delegations: [],
    messages: [],
    inboxes: new Map(),
    usage: {},
    conversations: 0,
  };
  const result = (status: StarsRunResult['status'], text: string, error?: unknown): StarsRunResult => ({
    team: stars.name,
    runId: run.runId,
    status,
    text,
    delegations: run.delegations,
    messages: run.messages,
    usage: run.usage,
    ...(error === undefined
      ? {}
      : { error: { code: HubosError.is(error) ? error.code : 'RUN_FAILED', message: errorMessage(error) } }),
  });
  try {
    const text = await converse(run, leader, RoleLeader, leaderBrief(stars, leader, task), [
      DELEGATE_TOOL,
      SEND_TOOL,
      BROADCAST_TOOL,
    ]);
    return result('completed', text);
  } catch (error) {
    if (run.signal.aborted) return result('cancelled', '', run.signal.reason ?? error);
    return result('failed', '', error);
  } finally {
    outer?.removeEventListener('abort', abort);
  }
}

function leaderBrief(stars: Stars, leader: string, task: string): string {
  const roster = stars
    .members()
    .filter((member) => member.agentId !== leader)
    .map(
      (member) =>
        `- ${member.agentId} (${member.role})${member.description ? `: ${member.description}` : ''}`,
    );
  return [
    `You lead the team "${stars.name}" as "${leader}". Your task:`,
    task,
    '',
    'Your team (delegate with stars_delegate; message with stars_send / stars_broadcast):',
    ...(roster.length ? roster : ['(no workers)']),
  ].join('\n');
}

function workerBrief(stars: Stars, worker: string, task: string): string {
  const others = stars
    .members()
    .filter((member) => member.agentId !== worker)
    .map((member) => `${member.agentId} (${member.role})`);
  return `You are "${worker}", a worker of the team "${stars.name}" (others: ${others.join(', ') || 'none'}). Your task:\n${task}`;
}

/** The member's inbox (the team's, from outside any run, and this run's), taken, as text to put before its input. */
function inboxText(run: TeamRun, member: string): string {
  const own = run.inboxes.get(member)?.splice(0) ?? [];
  const messages = [...run.stars.takeInbox(member), ...own].sort((a, b) => a.seq - b.seq);
  if (messages.length === 0) return '';
  const lines = messages.map((m) => `- from ${m.from}${m.to === '*' ? ' (to everyone)' : ''}: ${m.content}`);
  return `[Messages for you]\n${lines.join('\n')}`;
}

/**
 * One member's conversation: runs its agent with the team tools as client tools, answers their
 * calls, and goes on (same session) until it answers without them. Resolves with its answer.
 */
async function converse(
  run: TeamRun,
  member: string,
  role: StarsRole,
  brief: string,
  tools: ToolDefinition[],
): Promise<string> {
  const { stars, signal } = run;
  const agent = stars.agent(member);
  const sessionId = `stars.${stars.name}.${run.runId}.${++run.conversations}`;
  const inbox = inboxText(run, member);
  let input = inbox ? `${inbox}\n\n${brief}` : brief;
  let toolResults: Extract<Message, { role: 'tool' }>[] = [];
  for (let turn = 0; turn < stars.maxTurns; turn++) {
    let result: RunResult;
    try {
      result = await agent.run(input, {
        sessionId,
        signal,
        ...(run.principal !== undefined ? { principal: run.principal } : {}),
        via: 'stars',
        clientTools: tools,
        toolResults,
        onEvent: (event) => run.emit({ ...event, member, role }),
      });
    } catch (error) {
      const failed = HubosError.is(error) ? (error.details.result as RunResult | undefined) : undefined;
      if (failed) count(run, member, failed.usage);
      throw error;
    }
    count(run, member, result.usage);
    if (result.status === 'cancelled' || signal.aborted)
      throw new HubosError('RUN_CANCELLED', `member "${member}" was cancelled`);
    if (result.stopReason !== 'client-tool' || !result.pendingToolCalls?.length) return result.text;
    const outcomes = await Promise.all(
      result.pendingToolCalls.map((call) => answer(run, member, role, call)),
    );
    signal.throwIfAborted();
    toolResults = result.pendingToolCalls.map((call, i) => toolMessage(call, outcomes[i]!));
    input = inboxText(run, member);
  }
  throw new HubosError(
    'RUN_FAILED',
    `member "${member}" used all ${stars.maxTurns} turns (maxTurns) without answering`,
  );
}

function count(run: TeamRun, member: string, usage: Usage): void {
  run.usage[member] = addUsage(run.usage[member] ?? emptyUsage(), usage);
}

function toolMessage(call: ToolCall, outcome: ToolOutcome): Extract<Message, { role: 'tool' }> {
  const content = outcome.ok
    ? typeof outcome.output === 'string'
      ? outcome.output
      : JSON.stringify(outcome.output)
    : `Error: ${outcome.error}`;
  return {
    role: 'tool',
    toolCallId: call.id,
    name: call.name,
    content,
    ...(outcome.ok ? {} : { isError: true }),
  };
}

async function answer(run: TeamRun, member: string, role: StarsRole, call: ToolCall): Promise<ToolOutcome> {
  const input = (typeof call.input === 'object' && call.input !== null ? call.input : {}) as Record<
    string,
    unknown
  >;
  try {
    switch (call.name) {
      case SEND_TOOL.name: {
        if (typeof input.to !== 'string' || typeof input.content !== 'string')
          return { ok: false, error: 'stars_send needs { to: string, content: string }' };
        const message = run.stars.send(member, input.to, input.content, 'message', { deliver: false });
        deliver(run, input.to, message);
        noteMessage(run, member, role, message);
        return { ok: true, output: `sent to ${input.to}` };
      }
      case BROADCAST_TOOL.name: {
        if (typeof input.content !== 'string')
          return { ok: false, error: 'stars_broadcast needs { content: string }' };
        const message = run.stars.broadcast(member, input.content, { deliver: false });
        for (const { agentId } of run.stars.members()) if (agentId !== member) deliver(run, agentId, message);
        noteMessage(run, member, role, message);
        return { ok: true, output: 'sent to everyone' };
      }
      case DELEGATE_TOOL.name:
        return await delegate(run, member, input.tasks);
      default:
        return { ok: false, error: `no tool named "${call.name}"` };
    }
  } catch (error) {
    // A member's guardrail tripped: the team stops, as a run does.
    if (HubosError.is(error, 'GUARDRAIL_TRIPPED')) throw error;
    return { ok: false, error: errorMessage(error) };
  }
}

/** Into the recipient's inbox of this run. */
function deliver(run: TeamRun, to: string, message: StarsMessage): void {
  const inbox = run.inboxes.get(to) ?? [];
  inbox.push(message);
  if (inbox.length > run.stars.historyLimit) inbox.splice(0, inbox.length - run.stars.historyLimit);
  run.inboxes.set(to, inbox);
}

function noteMessage(run: TeamRun, member: string, role: StarsRole, message: StarsMessage): void {
  run.messages.push(message);
  run.emit({ type: 'stars-message', member, role, message });
}

/** Runs the delegated tasks concurrently; each worker's answer (or failure) goes back to the leader. */
async function delegate(run: TeamRun, leader: string, tasks: unknown): Promise<ToolOutcome> {
  const valid =
    Array.isArray(tasks) &&
    tasks.length > 0 &&
    tasks.every((t) => typeof t?.worker === 'string' && typeof t?.task === 'string' && t.task.trim() !== '');
  if (!valid)
    return {
      ok: false,
      error: 'stars_delegate needs { tasks: [{ worker, task }, ...] } with at least one task',
    };
  const { stars } = run;
  const delegations = await Promise.all(
    (tasks as { worker: string; task: string }[]).map(async ({ worker, task }): Promise<StarsDelegation> => {
      run.emit({ type: 'stars-delegation', member: leader, role: RoleLeader, worker, task });
      let delegation: StarsDelegation;
      try {
        if (stars.role(worker) !== RoleWorker) throw new Error(`"${worker}" is not a worker of the team`);
        const text = await converse(run, worker, RoleWorker, workerBrief(stars, worker, task), [
          SEND_TOOL,
          BROADCAST_TOOL,
        ]);
        if (!text.trim()) throw new Error(`worker "${worker}" finished without an answer`);
        delegation = { worker, task, ok: true, result: text };
        noteMessage(run, worker, RoleWorker, stars.send(worker, leader, text, 'result'));
      } catch (error) {
        if (run.signal.aborted || HubosError.is(error, 'GUARDRAIL_TRIPPED')) throw error;
        const code = HubosError.is(error) ? error.code : 'RUN_FAILED';
        delegation = { worker, task, ok: false, error: { code, message: errorMessage(error) } };
      }
      run.delegations.push(delegation);
      run.emit({ type: 'stars-delegation-result', member: leader, role: RoleLeader, delegation });
      return delegation;
    }),
  );
  const output = delegations.map(({ worker, ok, result, error }) =>
    ok ? { worker, ok, result } : { worker, ok, error: `${error!.message} [${error!.code}]` },
  );
  return delegations.some((d) => d.ok) ? { ok: true, output } : { ok: false, error: JSON.stringify(output) };
}
