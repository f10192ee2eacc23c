import {
  DefaultExecutionEventBus,
  DefaultExecutionEventBusManager,
  type ExecutionEventBus,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { errorMessage } from '../../../core/index.ts';
import type { RunManager } from '../runs.ts';
import type { HubOSTaskStore } from './task-store.ts';
import { TaskUpdates } from './task-updates.ts';

/**
 * The SDK's event buses, plus one for a task whose run goes on elsewhere (another instance, or a
 * queued run): fed from the run's events on the HubOS bus, so resubscribing to a task and
 * cancelling it work from any instance.
 */
export class RunEventBusManager extends DefaultExecutionEventBusManager {
  readonly #runs: RunManager;
  readonly #tasks: HubOSTaskStore;
  readonly #onError: (message: string) => void;

  constructor(runs: RunManager, tasks: HubOSTaskStore, onError: (message: string) => void) {
    super();
    this.#runs = runs;
    this.#tasks = tasks;
    this.#onError = onError;
  }

  override getByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus | undefined {
    const local = super.getByTaskId(taskId, context);
    if (local) return local;
    // Asked for synchronously: the bus is handed out now and fed once the run is found.
    const bus = new DefaultExecutionEventBus();
    this.#follow(taskId, bus).catch((error: unknown) => {
      this.#onError(`following task ${taskId}: ${errorMessage(error)}`);
      bus.finished();
    });
    return bus;
  }

  async #follow(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const runId = await this.#tasks.runOf(taskId);
    const run = runId ? await this.#runs.get(runId) : undefined;
    const task = await this.#tasks.loadAny(taskId);
    if (!run || !task || (run.status !== 'running' && run.status !== 'queued')) return bus.finished();
    const updates = new TaskUpdates(bus, taskId, task.contextId, { agent: run.agent, runId: run.id });
    for await (const entry of this.#runs.follow(run.id, 0)) {
      if ('end' in entry) {
        updates.finish(entry.end);
        break;
      }
      updates.onEvent(entry.event);
    }
    bus.finished();
  }
}
