import {
  type AgentHandle,
  type EmbeddingModelLike,
  HubosError,
  type KernelView,
  keepVectors,
  MEMORY_CONFIG_SCHEMA,
  type MemoryConfig,
  memoryScope,
  type Plugin,
  pruneVectors,
  readWorkingMemory,
  resolveMemory,
} from '../../core/index.ts';
import { withWorkingMemory, workingMemoryInstructions } from './instructions.ts';
import { RunMemories } from './run-memory.ts';
import { MEMORY_RECALL_TOOL, MEMORY_UPDATE_TOOL } from './tool-names.ts';
import { memoryRecallTool, memoryUpdateTool } from './tools.ts';

export { MEMORY_RECALL_TOOL, MEMORY_UPDATE_TOOL } from './tool-names.ts';

declare module 'hubos' {
  interface HubosConfig {
    /** What agents with memory share: an embedding model for recall by meaning. */
    memory?: MemoryConfig;
  }
}

/**
 * The `memory` plugin: agents whose config sets `memory` remember their users across sessions,
 * per API key's principal and `RunOptions.userId`. Working memory is read into the instructions
 * at each run's start (one store read) and rewritten with `memory_update`; `memory_recall`
 * searches the user's earlier sessions (the sessions tables' full-text index, and the vectors
 * of `memory.embeddings` when set). Both tools are given to those agents only, whatever their
 * `tools` patterns select.
 */
export default function memory(): Plugin {
  return {
    name: 'memory',
    configSchema: { memory: MEMORY_CONFIG_SCHEMA },
    apply(kernel) {
      const runs = new RunMemories();
      const embeddings = () => semanticOf(kernel);

      kernel.hooks.registerTools.tapPromise('memory', async (registry) => {
        registry.register(memoryUpdateTool(kernel, runs));
        registry.register(memoryRecallTool(kernel, runs, embeddings));
      });

      // Each tool to the agents with its part on; to no other, whatever their patterns select.
      kernel.hooks.resolveTools.tap('memory', (context) => {
        const parts = resolveMemory(context.agent.memory);
        const wanted = new Set([
          ...(parts?.working ? [MEMORY_UPDATE_TOOL] : []),
          ...(parts?.recall ? [MEMORY_RECALL_TOOL] : []),
        ]);
        const tools = context.tools.filter(
          (tool) =>
            (tool.name !== MEMORY_UPDATE_TOOL && tool.name !== MEMORY_RECALL_TOOL) || wanted.has(tool.name),
        );
        for (const name of wanted) {
          const tool = kernel.registry.list().find((registered) => registered.name === name);
          if (tool && !tools.includes(tool)) tools.push(tool);
        }
        return { ...context, tools };
      });

      kernel.hooks.ready.tap('memory', () => {
        semanticOf(kernel);
      });

      kernel.hooks.agentCreated.tap('memory', ({ agent }) => remember(kernel, agent, runs, embeddings));
    },
  };
}

/** Taps the hooks of an agent with memory: its runs read their memory first and keep it after. */
function remember(
  kernel: KernelView,
  agent: AgentHandle,
  runs: RunMemories,
  embeddings: () => { model: EmbeddingModelLike } | undefined,
): void {
  const parts = resolveMemory(agent.spec.memory);
  if (!parts) return;
  agent.hooks.beforeRun.tapPromise('memory', async (run) => {
    const scope = memoryScope(run);
    // The one store read memory adds before the model call.
    const working = parts.working ? await readWorkingMemory(kernel.store, scope) : undefined;
    runs.set(run.runId, { scope, sessionId: run.sessionId, memory: parts, working });
  });
  if (parts.working) {
    const template = parts.working.template;
    agent.hooks.beforeModelCall.tap('memory', ({ run, request }) => {
      const held = runs.get(run.runId);
      if (held?.working === undefined) return;
      request.system = withWorkingMemory(request.system, workingMemoryInstructions(held.working, template));
    });
  }
  agent.hooks.afterRun.tapPromise('memory', async ({ run, result }) => {
    runs.delete(run.runId);
    const semantic = embeddings();
    if (!semantic || !parts.recall) return;
    prune(kernel);
    if (run.sessionId === undefined || result.status === 'failed') return;
    try {
      await keepVectors(
        kernel.store,
        semantic.model,
        memoryScope(run),
        { sessionId: run.sessionId, runId: run.runId },
        result.messages,
      );
    } catch (error) {
      // The answer stands: only recall by meaning misses this run.
      kernel.logger.warn(`memory: the vectors of run ${run.runId} were not kept: ${String(error)}`);
    }
  });
}

const pruned = new WeakMap<KernelView, number>();

/**
 * Vectors follow the sessions' retention (`sessions.retention.maxAgeDays`): those of messages older
 * than it go, a batch of 500 after a run at most once an hour, in the background.
 */
function prune(kernel: KernelView): void {
  const days = kernel.config.sessions?.retention?.maxAgeDays;
  const now = Date.now();
  if (days === undefined || now - (pruned.get(kernel) ?? 0) < 3_600_000) return;
  pruned.set(kernel, now);
  pruneVectors(kernel.store, now - days * 86_400_000, 500).catch((error: unknown) =>
    kernel.logger.warn(`memory: old vectors were not pruned: ${String(error)}`),
  );
}

/** The embedding model of `memory.embeddings`, checked: undefined when none is set. */
function semanticOf(kernel: KernelView): { model: EmbeddingModelLike; maxVectors: number } | undefined {
  const config = kernel.config.memory;
  if (!config?.embeddings) return undefined;
  if (typeof (config.embeddings as Partial<EmbeddingModelLike>).doEmbed !== 'function')
    throw new HubosError(
      'CONFIG_INVALID',
      "memory.embeddings must be an AI SDK embedding model (one with doEmbed), e.g. openai.embedding('text-embedding-3-small')",
    );
  return { model: config.embeddings, maxVectors: config.maxVectors ?? 1_000 };
}
