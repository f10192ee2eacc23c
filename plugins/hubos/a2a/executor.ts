import { createHash } from 'node:crypto';
import { type Task, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent as A2AEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { Agent, RunLogEntry } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import type { AnswerGate } from './answer-gate.ts';
import { callerOf } from './caller.ts';
import type { FollowedTasks } from './followed-tasks.ts';
import { agentMessage, inputText, textPart } from './parts.ts';
import { RunFeed } from './run-feed.ts';
import { RunTranslator, type TurnStart } from './run-translator.ts';
import type { HubOSTaskStore } from './task-store.ts';
import { type ResumePoint, resumePointOf, TaskUpdates } from './task-updates.ts';
import { userIdOf } from './user-id.ts';

/** What the REST routes accept as a session id; other context ids are hashed into one. */
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface ExecutorDeps {
  tasks: HubOSTaskStore;
  gate: AnswerGate;
  followed: FollowedTasks;
}

/**
 * Runs a HubOS agent for each A2A message. Runs go through `hubos.runs`, so they show up in
 * `/api/runs`, are drained at shutdown and are cancelled the same way. The A2A context is the
 * HubOS session: messages sent in one context continue one conversation. A turn follows its run
 * until the run ends or waits for a human (`input-required`); the message that answers it (see
 * answer-gate.ts) starts a turn that takes the task on from there, on whichever instance it came to.
 */
export class HubOSAgentExecutor implements AgentExecutor {
  readonly #hubos: HubOS;
  readonly #agent: Agent;
  readonly #tasks: HubOSTaskStore;
  readonly #gate: AnswerGate;
  readonly #followed: FollowedTasks;

  constructor(hubos: HubOS, agent: Agent, deps: ExecutorDeps) {
    this.#hubos = hubos;
    this.#agent = agent;
    this.#tasks = deps.tasks;
    this.#gate = deps.gate;
    this.#followed = deps.followed;
  }

  /**
   * Runs the task's turn. Shutdown waits for it, and it returns only once the SDK has stored the
   * task's state (final, or input-required): the store is closed right after the drain.
   */
  execute = (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    // Aborted at the drain's deadline: it stops following a run that goes on elsewhere (the task
    // then takes the run's outcome when next read).
    const stop = new AbortController();
    const since = new Date().toISOString();
    const release = this.#followed.hold(request.taskId);
    const done = this.#execute(request, bus, stop.signal)
      .then(() => this.#tasks.settled(request.taskId, since))
      .finally(release);
    this.#hubos.runs.track(stop, done);
    return done;
  };

  #execute = async (request: RequestContext, bus: ExecutionEventBus, stop: AbortSignal): Promise<void> => {
    const { taskId, contextId } = request;
    const message = request.userMessage;
    const userId = userIdOf(message);
    // The SDK wants a task first, also on a follow-up turn (it then holds the new message already).
    bus.publish(A2AEvent.task(request.task ?? newTask(taskId, contextId, this.#agent.id, message)));
    if (request.task && this.#gate.wasAnswered(taskId, message)) return this.#resume(request.task, bus, stop);
    const runs = this.#hubos.runs;
    const principal = callerOf(request.context);
    // The context is the caller's session: the same context id from another key is another conversation.
    const options = {
      principal,
      sessionId: sessionIdFor(contextId),
      via: 'a2a' as const,
      ...(userId !== undefined ? { run: { userId } } : {}),
    };
    // A send that returns at once goes through the queue: whichever instance has room runs it.
    if (request.request.configuration?.returnImmediately === true) {
      const record = await runs.enqueue(this.#agent, inputText(message), options);
      await this.#tasks.link(taskId, record.id);
      const updates = this.#updates(bus, taskId, contextId, record.id);
      updates.working();
      return this.#follow(
        updates,
        record.id,
        { pending: [], announce: false },
        runs.follow(record.id, 0, stop),
        stop,
      );
    }
    const feed = new RunFeed();
    const record = await runs.start(this.#agent, inputText(message), {
      ...options,
      run: { via: 'a2a', ...(userId !== undefined ? { userId } : {}) },
      // Heard from the first event; those before the turn follows are kept for it.
      listener: (event, seq) => feed.push({ seq, event }),
    });
    void runs.wait(record.id).then(
      (end) => (end ? feed.push({ end }) : feed.close()),
      () => feed.close(),
    );
    await this.#tasks.link(taskId, record.id);
    const updates = this.#updates(bus, taskId, contextId, record.id);
    updates.working();
    try {
      await this.#follow(updates, record.id, { pending: [], announce: false }, feed, stop);
    } finally {
      feed.close();
    }
  };

  /** An answer's turn: the task's run goes on from where the stored task stands. */
  async #resume(task: Task, bus: ExecutionEventBus, stop: AbortSignal): Promise<void> {
    const runId = await this.#tasks.runOf(task.id);
    if (!runId) throw new Error(`task ${task.id} names no run to go on with`);
    const point = resumePointOf(task, runId);
    const updates = this.#updates(bus, task.id, task.contextId, runId, point);
    const entries = this.#hubos.runs.follow(runId, point.seq, stop);
    await this.#follow(updates, runId, { pending: point.pending, announce: true }, entries, stop);
  }

  async #follow(
    updates: TaskUpdates,
    runId: string,
    start: TurnStart,
    entries: AsyncIterable<RunLogEntry>,
    stop: AbortSignal,
  ): Promise<void> {
    const pendingOf = () => this.#agent.approvals.list(runId);
    const end = await new RunTranslator(updates, pendingOf, start).run(entries);
    // Its events stopped coming without an end (the store lost them): the record says how it ended.
    if (end === 'stopped' && !stop.aborted) updates.finish(await this.#hubos.runs.get(runId));
  }

  #updates(
    bus: ExecutionEventBus,
    taskId: string,
    contextId: string,
    runId: string,
    point?: ResumePoint,
  ): TaskUpdates {
    return new TaskUpdates(
      bus,
      taskId,
      contextId,
      { agent: this.#agent.id, runId },
      { seq: point?.seq ?? 0, waiting: (point?.pending.length ?? 0) > 0 },
    );
  }

  /** Aborts the task's run; whoever follows it then publishes the final `canceled` status the SDK waits for. */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const runId = await this.#tasks.runOf(taskId);
    // Cancelled wherever it runs: whoever follows the run (a turn here, or the bus that follows
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
