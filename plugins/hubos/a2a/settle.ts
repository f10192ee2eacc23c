import { type Task, TaskState } from '@a2a-js/sdk';
import type { RunRecord } from '../../../core/index.ts';
import { agentMessage, textPart } from './parts.ts';

/** The task as its ended run leaves it: completed with the answer, canceled, or failed with the reason. */
export function settledTask(task: Task, run: RunRecord): Task {
  const timestamp = run.finishedAt ?? new Date().toISOString();
  const say = (text: string) => agentMessage(task.id, task.contextId, [textPart(text)]);
  const hubos = { agent: run.agent, runId: run.id, ...(run.error ? { error: run.error } : {}) };
  if (run.status === 'completed') {
    const text = run.result?.text ?? '';
    return {
      ...task,
      status: { state: TaskState.TASK_STATE_COMPLETED, message: text ? say(text) : undefined, timestamp },
      artifacts: text
        ? [
            {
              artifactId: 'answer',
              name: 'answer',
              description: '',
              parts: [textPart(text)],
              metadata: undefined,
              extensions: [],
            },
          ]
        : task.artifacts,
      metadata: { ...task.metadata, hubos },
    };
  }
  if (run.status === 'cancelled')
    return {
      ...task,
      status: { state: TaskState.TASK_STATE_CANCELED, message: say('The task was canceled.'), timestamp },
      metadata: { ...task.metadata, hubos },
    };
  const error = run.error ?? { code: 'RUN_FAILED', message: 'the run failed' };
  return {
    ...task,
    status: {
      state: TaskState.TASK_STATE_FAILED,
      message: say(`${error.code}: ${error.message}`),
      timestamp,
    },
    metadata: { ...task.metadata, hubos },
  };
}
