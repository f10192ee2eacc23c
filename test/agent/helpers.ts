import type {
  AgentTemplate,
  HubosConfig,
  Kernel,
  KernelOptions,
  Plugin,
  Tool,
  ToolHandler,
} from '../../core/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../testing/index.ts';

/** A tool with an open object schema unless one is given. */
export function makeTool(
  name: string,
  handler: ToolHandler = () => 'ok',
  extra: Partial<Omit<Tool, 'name' | 'handler'>> = {},
): Tool {
  return {
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: {} },
    handler,
    ...extra,
  };
}

/** A plugin that registers `tools` in `registerTools`. */
export function toolsPlugin(tools: Tool[], name = 'test-tools'): Plugin {
  return {
    name,
    apply(kernel) {
      kernel.hooks.registerTools.tap(name, (registry) => registry.registerBatch(tools));
    },
  };
}

export interface AgentSetup {
  script?: ScriptStep[];
  /** Tools registered (and given to the agent unless `template.tools` says otherwise). */
  tools?: Tool[];
  template?: AgentTemplate;
  plugins?: Plugin[];
  config?: HubosConfig;
  options?: KernelOptions;
  name?: string;
}

/** Boots a kernel with one agent driven by a ScriptedModel; close it with `kernel.close()`. */
export async function bootAgent(setup: AgentSetup = {}) {
  const name = setup.name ?? 'assistant';
  const model = new ScriptedModel(setup.script ?? []);
  const tools = setup.tools ?? [];
  const template: AgentTemplate = {
    model,
    ...(tools.length > 0 ? { tools: tools.map((tool) => tool.name) } : {}),
    ...setup.template,
  };
  const kernel: Kernel = await bootKernel({
    config: { ...setup.config, agents: { [name]: template } },
    plugins: [...(tools.length > 0 ? [toolsPlugin(tools)] : []), ...(setup.plugins ?? [])],
    ...setup.options,
  });
  return { kernel, model, agent: kernel.agent(name) };
}

/** A promise with its resolver exposed. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Opens once `parties` callers have arrived; each caller waits for it. Fails after `timeoutMs`
 * (so a sequential run shows up as an error, not a hung test).
 */
export function barrier(parties: number, timeoutMs = 2_000) {
  let arrived = 0;
  const open = deferred();
  return {
    async wait(): Promise<void> {
      arrived++;
      if (arrived >= parties) open.resolve();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`barrier: only ${arrived} of ${parties} arrived`)),
          timeoutMs,
        );
      });
      try {
        await Promise.race([open.promise, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Rejects with the signal's reason when it aborts (and stays pending until then). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
