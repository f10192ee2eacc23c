import type { AgentCard, Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBusManager,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import type { AnswerGate } from './answer-gate.ts';

/**
 * The SDK's request handler with HubOS's answer gate before each message (both protocol versions
 * come through here: the v0.3 transport translates its requests first): a message for a task
 * whose run goes on is an answer, decided before the SDK touches the task, or refused.
 */
export class HubOSRequestHandler extends DefaultRequestHandler {
  readonly #gate: AnswerGate;

  constructor(
    card: AgentCard,
    tasks: TaskStore,
    executor: AgentExecutor,
    buses: ExecutionEventBusManager,
    gate: AnswerGate,
  ) {
    super(card, tasks, executor, buses);
    this.#gate = gate;
  }

  override async sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    const release = await this.#gate.admit(params.message, context);
    try {
      return await super.sendMessage(params, context);
    } finally {
      release();
    }
  }

  override async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const release = await this.#gate.admit(params.message, context);
    try {
      yield* super.sendMessageStream(params, context);
    } finally {
      release();
    }
  }
}
