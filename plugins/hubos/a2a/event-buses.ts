import { TaskState } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBus,
  type EventListener,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  type ExecutionEventName,
  type FinishedListener,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import type { RunEngine as RunManager } from '../../../core/index.ts';
import { type Approvals, errorMessage } from '../../../core/index.ts';
import type { FollowedTasks } from './followed-tasks.ts';
import { RunTranslator } from './run-translator.ts';
import type { HubOSTaskStore } from './task-store.ts';
import { resumePointOf, TaskUpdates } from './task-updates.ts';

export interface RunEventBusDeps {
  runs: RunManager;
  tasks: HubOSTaskStore;
  approvals: Approvals;
  followed: FollowedTasks;
  onError: (message: string) => void;
}

/** How long a watcher waits at most for its reader to be done with the last status. */
const READER_DONE_MS = 2_000;

/**
 * The event buses of A2A tasks. Each turn (a message's execution) gets a bus of its own, ended
 * when the turn ends, `input-required` included: the next turn (the answer) takes the task on
 * from the store, on a new bus, on any instance. Resubscribing to (or cancelling) a task no turn
 * of this instance follows gets a watcher: a bus fed from the run's events on the HubOS bus, from
 * where the stored task stands, so it works the same for a run on another instance, a queued run,
 * or a task waiting for an answer that the page or REST may give.
 */
export class RunEventBusManager implements ExecutionEventBusManager {
  readonly #deps: RunEventBusDeps;
  /** The bus of the turn under way here, per task. */
  readonly #turns = new Map<string, ExecutionEventBus>();

  constructor(deps: RunEventBusDeps) {
    this.#deps = deps;
  }

  createOrGetByTaskId(taskId: string): ExecutionEventBus {
    const bus = new DefaultExecutionEventBus();
    this.#turns.set(taskId, bus);
    return bus;
  }

  getByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus | undefined {
    const turn = this.#turns.get(taskId);
    if (turn) return turn;
    // Asked for synchronously: the bus is handed out now and fed once the run is found.
    const bus = new WatcherBus();
    this.#watch(taskId, bus, context)
      .catch((error: unknown) => this.#deps.onError(`following task ${taskId}: ${errorMessage(error)}`))
      .finally(() => bus.finished());
    return bus;
  }

  cleanupByTaskId(taskId: string): void {
    const bus = this.#turns.get(taskId);
    this.#turns.delete(taskId);
    bus?.finished();
    bus?.removeAllListeners();
  }

  /** Every turn's bus ends with its turn; a later turn of the task has a bus of its own. */
  settleByTaskId(taskId: string, bus: ExecutionEventBus): boolean {
    if (this.#turns.get(taskId) === bus) this.#turns.delete(taskId);
    bus.finished();
    bus.removeAllListeners();
    return true;
  }

  async #watch(taskId: string, bus: WatcherBus, context: ServerCallContext | undefined): Promise<void> {
    const { tasks, runs, approvals } = this.#deps;
    // The caller's: a task another key made is watched by nobody (the SDK then says TaskNotFound).
    const task = await tasks.load(taskId, context);
    const runId = task && (await tasks.runOf(taskId));
    const run = runId ? await runs.get(runId) : undefined;
    // A run that ended meanwhile (a cancel through this very instance, say) is followed too: its
    // log, or its record alone, says how it ended.
    if (!task || !run) return;
    const waits = task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
    const point = resumePointOf(task, run.id);
    const pending = waits ? point.pending : [];
    const updates = new TaskUpdates(
      bus,
      taskId,
      task.contextId,
      { agent: run.agent, runId: run.id },
      { seq: point.seq, waiting: pending.length > 0 },
    );
    const translator = new RunTranslator(updates, () => approvals.list(run.id), { pending, announce: false });
    // Followed until its reader is done with the last status (a cancel stores it): a read
    // meanwhile does not settle the task under the updates being stored.
    const release = this.#deps.followed.hold(taskId);
    try {
      const end = await translator.run(runs.follow(run.id, point.seq, bus.left));
      if (end !== 'stopped') await untilAborted(bus.left, READER_DONE_MS);
    } finally {
      release();
    }
  }
}

/** A watcher's bus: `left` aborts once its last reader is gone (or it ended), so the watch stops too. */
class WatcherBus extends DefaultExecutionEventBus {
  readonly #left = new AbortController();
  #readers = 0;

  get left(): AbortSignal {
    return this.#left.signal;
  }

  override on(eventName: 'event', listener: EventListener): this;
  override on(eventName: 'finished', listener: FinishedListener): this;
  override on(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    if (eventName === 'finished') return super.on(eventName, listener as FinishedListener);
    this.#readers++;
    return super.on(eventName, listener as EventListener);
  }

  override off(eventName: 'event', listener: EventListener): this;
  override off(eventName: 'finished', listener: FinishedListener): this;
  override off(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    if (eventName === 'finished') return super.off(eventName, listener as FinishedListener);
    if (--this.#readers <= 0) this.#left.abort();
    return super.off(eventName, listener as EventListener);
  }

  override finished(): void {
    super.finished();
    this.#left.abort();
  }
}

function untilAborted(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}
