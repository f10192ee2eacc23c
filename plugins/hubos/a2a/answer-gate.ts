import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import type { RunEngine as RunManager, RunRecord } from '../../../core/index.ts';
import { type Agent, type ApprovalRecord, canSee, HubosError } from '../../../core/index.ts';
import { chooseRequest, decisionFor, readAnswer } from './answer.ts';
import { callerOf } from './caller.ts';
import type { FollowedTasks } from './followed-tasks.ts';
import type { HubOSTaskStore } from './task-store.ts';

export interface AnswerGateDeps {
  agent: Agent;
  runs: RunManager;
  tasks: HubOSTaskStore;
  followed: FollowedTasks;
}

/**
 * Stands before the SDK for every message sent to an existing task whose run goes on. Such a task
 * takes no new turn: a message is the answer to what its run waits for (a permission, a tool's
 * question), decided here, where a wrong answer is still a plain JSON-RPC error and the task
 * unharmed; a task that asks nothing refuses it. The SDK then appends the message to the task and
 * hands it to the executor, which takes the task on from where it stood (`wasAnswered`).
 */
export class AnswerGate {
  readonly #deps: AnswerGateDeps;
  /** `<taskId>/<messageId>` of the answers decided here whose turn has not started yet. */
  readonly #answered = new Set<string>();

  constructor(deps: AnswerGateDeps) {
    this.#deps = deps;
  }

  /**
   * Decides `message` if it answers its task's run, or throws why it cannot be taken; resolves
   * with a release for the caller to call once the SDK is done with the message.
   */
  async admit(message: Message | undefined, context: ServerCallContext): Promise<() => void> {
    const taskId = message?.taskId;
    if (!message || !taskId) return () => undefined;
    const { tasks, runs, followed } = this.#deps;
    // Read as the caller: another key's task is not there for it (the SDK then says TaskNotFound).
    const task = await tasks.load(taskId, context);
    if (!task) return () => undefined;
    const runId = await tasks.runOf(taskId);
    const run = runId ? await runs.get(runId) : undefined;
    if (!run || (run.status !== 'running' && run.status !== 'queued')) return () => undefined;
    // What the SDK would refuse is refused before anything is decided.
    if (!message.messageId) throw new RequestMalformedError('message.messageId is required.');
    if (message.contextId && message.contextId !== task.contextId)
      throw new RequestMalformedError(
        `contextId mismatch: message contextId '${message.contextId}' does not match task '${taskId}' contextId '${task.contextId}'`,
      );
    const caller = callerOf(context);
    const pending = (await this.#pendingOf(run.id)).filter((request) => canSee(caller, request.principal));
    if (pending.length === 0)
      throw new UnsupportedOperationError(
        `task ${taskId} is still working on its last message and asks nothing now: wait for it to end, or cancel it`,
      );
    const answer = readAnswer(message);
    const request = chooseRequest(pending, answer, taskId);
    const release = followed.hold(taskId);
    try {
      await this.#decide(run, request, decisionFor(request, answer));
    } catch (error) {
      release();
      throw error;
    }
    const key = `${taskId}/${message.messageId}`;
    this.#answered.add(key);
    return () => {
      this.#answered.delete(key);
      release();
    };
  }

  /** Whether `message` is an answer decided here: its turn takes the task on rather than starting a run. */
  wasAnswered(taskId: string, message: Message): boolean {
    return this.#answered.delete(`${taskId}/${message.messageId}`);
  }

  /** The run's requests still waiting for an answer. */
  #pendingOf(runId: string): Promise<ApprovalRecord[]> {
    return this.#deps.agent.approvals.list(runId);
  }

  async #decide(run: RunRecord, request: ApprovalRecord, decision: Parameters<Agent['approve']>[2]) {
    const { callId } = request;
    try {
      // Over A2A the caller answering is the task's (the run's) owner.
      await this.#deps.agent.approve(run.id, callId, run.owner ? { ...decision, by: run.owner } : decision);
    } catch (error) {
      if (HubosError.is(error, 'APPROVAL_ANSWER_INVALID'))
        throw new RequestMalformedError({
          message: `${error.message} Over A2A: a data part holding the fields (or {"approved": true, "content": {…}}).`,
          metadata: { code: error.code, callId },
        });
      if (HubosError.is(error, 'APPROVAL_DECIDED') || HubosError.is(error, 'APPROVAL_NOT_FOUND'))
        throw new UnsupportedOperationError({
          message: `request ${callId} takes no answer any more: ${error.message}`,
          metadata: { code: error.code, callId },
        });
      // Recorded for a run another instance runs, over a bus it does not share: that instance
      // reads the decision from the store. Only a run that has ended leaves it unheard.
      if (
        HubosError.is(error, 'RUN_NOT_RUNNING') &&
        (await this.#deps.runs.get(run.id))?.status === 'running'
      )
        return;
      if (HubosError.is(error, 'RUN_NOT_RUNNING'))
        throw new UnsupportedOperationError({
          message: `the task's run ended before the answer reached it: ${error.message}`,
          metadata: { code: error.code, callId },
        });
      throw error;
    }
  }
}
