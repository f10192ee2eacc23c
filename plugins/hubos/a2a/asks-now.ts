import { type Task, TaskState } from '@a2a-js/sdk';
import type { ApprovalRecord } from '../../../core/index.ts';
import { inputRequiredMessage } from './input-required.ts';
import { agentMessage, textPart } from './parts.ts';

type HubOSMeta = Record<string, unknown> & { pending?: unknown };

/**
 * A task stored `input-required` as its run's approvals show it now (`pending`: the requests
 * still waiting): `input-required`, saying what is asked now, while any wait; `working` once none
 * does (it was answered elsewhere: the page, REST). The stored task as it is when it already says
 * so. Its `seq` is kept: the next turn goes on from it.
 */
export function asksNow(task: Task, pending: ApprovalRecord[]): Task {
  const metadata = (task.metadata ?? {}) as { hubos?: HubOSMeta };
  const hubos = metadata.hubos ?? {};
  const waits = task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
  const said = Array.isArray(hubos.pending) ? [...hubos.pending].sort().join('\n') : '';
  const asked = pending.map((request) => request.callId);
  if (pending.length > 0) {
    if (waits && said === [...asked].sort().join('\n')) return task;
    return {
      ...task,
      status: {
        state: TaskState.TASK_STATE_INPUT_REQUIRED,
        message: inputRequiredMessage(task.id, task.contextId, pending),
        timestamp: new Date().toISOString(),
      },
      metadata: { ...metadata, hubos: { ...hubos, pending: asked } },
    };
  }
  if (!waits) return task;
  const { pending: _answered, ...working } = hubos;
  return {
    ...task,
    status: {
      state: TaskState.TASK_STATE_WORKING,
      message: agentMessage(task.id, task.contextId, [textPart('Answered; the task is working again.')]),
      timestamp: new Date().toISOString(),
    },
    metadata: { ...metadata, hubos: working },
  };
}
