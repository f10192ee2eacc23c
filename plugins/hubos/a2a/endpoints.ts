import type { AgentCard } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import type { Agent } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import { AnswerGate } from './answer-gate.ts';
import { buildAgentCard } from './card.ts';
import { RunEventBusManager } from './event-buses.ts';
import { HubOSAgentExecutor } from './executor.ts';
import { FollowedTasks } from './followed-tasks.ts';
import { HubOSRequestHandler } from './request-handler.ts';
import { HubOSTaskStore } from './task-store.ts';

/** One agent's A2A server: the SDK's request handler behind a v1.0 and a v0.3 JSON-RPC transport. */
export interface A2AEndpoint {
  name: string;
  agent: Agent;
  handler: HubOSRequestHandler;
  executor: HubOSAgentExecutor;
  jsonRpc: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
  /** The card, naming URLs on the origin the client used. */
  card(base: string): AgentCard;
}

/**
 * The endpoints of the served agents, made on first use and remade when a name is given to another
 * agent (so a replaced agent never answers for the new one).
 */
export class A2AEndpoints {
  readonly #hubos: HubOS;
  readonly #endpoints = new Map<string, A2AEndpoint>();

  constructor(hubos: HubOS) {
    this.#hubos = hubos;
  }

  /** The endpoint of the agent served under `name`; a 404 `AGENT_NOT_FOUND` error otherwise. */
  get(name: string): A2AEndpoint {
    const agent = this.#hubos.agent(name);
    const cached = this.#endpoints.get(name);
    if (cached?.agent === agent) return cached;
    const endpoint = this.#create(name, agent);
    this.#endpoints.set(name, endpoint);
    return endpoint;
  }

  #create(name: string, agent: Agent): A2AEndpoint {
    const hubos = this.#hubos;
    const followed = new FollowedTasks();
    const runs = hubos.runs;
    const tasks = new HubOSTaskStore(runs.store, name, {
      runRecord: (runId) => runs.get(runId),
      pendingOf: (runId) => agent.approvals.list(runId),
      followed,
    });
    const card = (origin: string) => buildAgentCard(hubos, name, agent, origin);
    const gate = new AnswerGate({ agent, runs, tasks, followed });
    const executor = new HubOSAgentExecutor(hubos, agent, { tasks, gate, followed });
    const buses = new RunEventBusManager({
      runs,
      tasks,
      approvals: agent.approvals,
      followed,
      onError: (message) => hubos.options.kernel?.logger.warn(message),
    });
    // The handler reads capabilities and protocol versions from its card, never the URL.
    const handler = new HubOSRequestHandler(card(hubos.baseUrl), tasks, executor, buses, gate);
    return {
      name,
      agent,
      handler,
      executor,
      jsonRpc: new JsonRpcTransportHandler(handler),
      legacy: new LegacyJsonRpcTransportHandler(handler),
      card,
    };
  }
}
