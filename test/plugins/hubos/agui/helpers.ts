import { type AgentSubscriber, type BaseEvent, HttpAgent, type RunAgentResult } from '@ag-ui/client';
import { definePlugin, type Kernel, type Tool } from '../../../../core/index.ts';
import { HubOS } from '../../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../../testing/index.ts';

export interface Served {
  url: string;
  hubos: HubOS;
  kernel: Kernel;
  model: ScriptedModel;
  /** An official AG-UI client for the agent (a new thread each time). */
  client(name?: string): HttpAgent;
  close(): Promise<void>;
}

/** A kernel with one agent, `helper`, answering from `script` with `tools`, served by HubOS on a free port. */
export async function serveAgent(script: ScriptStep[], tools: Tool[] = []): Promise<Served> {
  const model = new ScriptedModel(script);
  const plugin = definePlugin({
    name: 'agui-test-tools',
    apply(kernel) {
      kernel.hooks.registerTools.tap('agui-test-tools', (registry) => registry.registerBatch(tools));
    },
  });
  const kernel = await bootKernel({
    plugins: [plugin],
    config: { agents: { helper: { model, tools: tools.map((tool) => tool.name) } } },
  });
  const hubos = new HubOS({ kernel, port: 0 });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  return {
    url,
    hubos,
    kernel,
    model,
    client: (name = 'helper') => new HttpAgent({ url: `${url}/agui/${name}` }),
    close: async () => {
      await hubos.close();
      await kernel.close();
    },
  };
}

/** Adds a user message and runs, collecting every event the client applied. */
export async function runWith(
  agent: HttpAgent,
  text: string | undefined,
  parameters: Parameters<HttpAgent['runAgent']>[0] = {},
  subscriber: AgentSubscriber = {},
): Promise<{ events: BaseEvent[]; result?: RunAgentResult; error?: unknown }> {
  if (text !== undefined) agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  const events: BaseEvent[] = [];
  try {
    const result = await agent.runAgent(parameters, {
      ...subscriber,
      onEvent: (params) => {
        events.push(params.event);
        return subscriber.onEvent?.(params);
      },
    });
    return { events, result };
  } catch (error) {
    return { events, error };
  }
}

/** Event types in order, with runs of one type (streamed deltas) collapsed to one. */
export function shape(events: readonly BaseEvent[]): string[] {
  return events.map((event) => event.type).filter((type, i, all) => i === 0 || type !== all[i - 1]);
}

export function ofType<T extends BaseEvent>(events: readonly BaseEvent[], type: string): T[] {
  return events.filter((event) => event.type === type) as T[];
}

/** A promise with its resolve function outside. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
