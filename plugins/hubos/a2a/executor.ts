import { createHash } from 'node:crypto';
import { type Task, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent as A2AEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { Agent } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import { canSee, type Principal } from '../kit/principal.ts';
import { callerOf } from './caller.ts';
import { agentMessage, inputText, textPart } from './parts.ts';
import type { HubOSTaskStore } from './task-store.ts';
import { TaskUpdates } from './task-updates.ts';

/** What the REST routes accept as a session id; other context ids are hashed into one. */
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Runs a HubOS agent for each A2A message. Runs go through `hubos.runs`, so they show up in
 * `/api/runs`, are drained at shutdown and are cancelled the same way. The A2A context is the
 * HubOS session: messages sent in one context continue one conversation.
 */
export class HubOSAgentExecutor implements AgentExecutor {
  readonly #hubos: HubOS;
  readonly #agent: Agent;
  readonly #tasks: HubOSTaskStore;
  /** Task id -> its run in progress in this process (json-rpc.ts refuses a second one). */
  readonly #running = new Map<string, { runId: string; owner: string }>();

  constructor(hubos: HubOS, agent: Agent, tasks: HubOSTaskStore) {
    this.#hubos = hubos;
    this.#agent = agent;
    this.#tasks = tasks;
  }

  /**
   * Runs the task's turn. Shutdown waits for it, and it returns only once the SDK has stored the
   * task's final state: the store is closed right after the drain.
   */
  execute = (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    // Aborted at the drain's deadline: it stops following a run that goes on elsewhere (the task
    // then takes the run's outcome when next read).
    const stop = new AbortController();
    const done = this.#execute(request, bus, stop.signal).then(() => this.#tasks.settled(request.taskId));
    this.#hubos.runs.track(stop, done);
    return done;
  };

  #execute = async (request: RequestContext, bus: ExecutionEventBus, stop: AbortSignal): Promise<void> => {
    const { taskId, contextId } = request;
    const message = request.userMessage;
    // The SDK wants a task first, also on a follow-up turn (it then holds the new message already).
    bus.publish(A2AEvent.task(request.task ?? newTask(taskId, contextId, this.#agent.id, message)));
    const runs = this.#hubos.runs;
    const principal = callerOf(request.context);
    // The context is the caller's session: the same context id from another key is another conversation.
    const options = { principal, sessionId: sessionIdFor(contextId), via: 'a2a' as const };
    // A send that returns at once goes through the queue: whichever instance has room runs it.
    if (request.request.configuration?.returnImmediately === true) {
      const record = await runs.enqueue(this.#agent, inputText(message), options);
      await this.#tasks.link(taskId, record.id);
      const updates = new TaskUpdates(bus, taskId, contextId, { agent: this.#agent.id, runId: record.id });
      this.#running.set(taskId, { runId: record.id, owner: principal.id });
      updates.working();
      try {
        for await (const entry of runs.follow(record.id, 0, stop)) {
          if ('end' in entry) return updates.finish(entry.end);
          updates.onEvent(entry.event);
        }
        if (!stop.aborted) updates.finish(await runs.get(record.id));
      } finally {
        this.#running.delete(taskId);
      }
      return;
    }
    let updates: TaskUpdates | undefined;
    const early: Parameters<TaskUpdates['onEvent']>[0][] = [];
    const record = await runs.start(this.#agent, inputText(message), {
      ...options,
      // Heard from the first event; those before the updates exist are replayed into them.
      listener: (event) => (updates ? updates.onEvent(event) : early.push(event)),
    });
    await this.#tasks.link(taskId, record.id);
    updates = new TaskUpdates(bus, taskId, contextId, { agent: this.#agent.id, runId: record.id });
    this.#running.set(taskId, { runId: record.id, owner: principal.id });
    updates.working();
    for (const event of early.splice(0)) updates.onEvent(event);
    try {
      updates.finish(await runs.wait(record.id));
    } finally {
      this.#running.delete(taskId);
    }
  };

  /** Whether a run of this task, one `principal` may see, is in progress here. */
  isRunning(taskId: string, principal: Principal): boolean {
    const running = this.#running.get(taskId);
    return running !== undefined && canSee(principal, running.owner);
  }

  /** Aborts the task's run; `execute` then publishes the final `canceled` status the SDK waits for. */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const runId = this.#running.get(taskId)?.runId ?? (await this.#tasks.runOf(taskId));
    // Cancelled wherever it runs: whoever follows the run (execute here, or the bus that follows
    // it from another instance) then publishes the final `canceled` status.
    if (runId && (await this.#hubos.runs.cancel(runId).catch(() => undefined))) return;
    // Nothing of it runs here (it ended meanwhile, or another process runs it): mark it canceled.
    const contextId = (await this.#tasks.loadAny(taskId))?.contextId ?? '';
    bus.publish(
      A2AEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: agentMessage(taskId, contextId, [textPart('The task was canceled.')]),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
  };
}

function newTask(
  taskId: string,
  contextId: string,
  agent: string,
  message: RequestContext['userMessage'],
): Task {
  return {
    id: taskId,
    contextId,
    status: {
      state: TaskState.TASK_STATE_SUBMITTED,
      message: undefined,
      timestamp: new Date().toISOString(),
    },
    artifacts: [],
    history: [message],
    metadata: { hubos: { agent } },
  };
}

/** Session ids are store keys: a context id that is not a plain token is hashed into one. */
export function sessionIdFor(contextId: string): string {
  if (SESSION_ID.test(contextId)) return contextId;
  return `a2a-${createHash('sha256').update(contextId).digest('hex').slice(0, 40)}`;
}
