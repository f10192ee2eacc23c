import {
  type EmbeddingModelLike,
  HubosError,
  type KernelView,
  MAX_WORKING_MEMORY,
  searchVectors,
  type Tool,
  writeWorkingMemory,
} from '../../core/index.ts';
import type { RunMemories, RunMemory } from './run-memory.ts';
import { MEMORY_RECALL_TOOL, MEMORY_UPDATE_TOOL } from './tool-names.ts';

/** What a recalled message shows of its text, at most. */
const SHOWN = 1_000;

/** A run of an agent with this part of memory on, or a clear error (the tool called out of one). */
function runOf(runs: RunMemories, runId: string | undefined, part: 'working' | 'recall'): RunMemory {
  const run = runs.get(runId);
  if (!run?.memory[part])
    throw new HubosError('TOOL_FAILED', `this tool works in the runs of an agent whose memory.${part} is on`);
  return run;
}

export function memoryUpdateTool(kernel: KernelView, runs: RunMemories): Tool<{ memory: string }> {
  return {
    name: MEMORY_UPDATE_TOOL,
    description: `Replaces the working memory about this user (the document under "Working memory" in your instructions) with a new version: pass the whole document, changed, in markdown, at most ${MAX_WORKING_MEMORY} characters. It is there in every later conversation with this user.`,
    inputSchema: {
      type: 'object',
      properties: {
        memory: {
          type: 'string',
          maxLength: MAX_WORKING_MEMORY,
          description: 'The whole working memory, updated.',
        },
      },
      required: ['memory'],
      additionalProperties: false,
    },
    async handler(_options, tc) {
      const run = runOf(runs, tc.runId, 'working');
      await writeWorkingMemory(kernel.store, run.scope, tc.input.memory);
      // The run's later model calls read the new version.
      run.working = tc.input.memory;
      return 'working memory updated';
    },
  };
}

interface Recalled {
  session: string;
  when: string;
  role: 'user' | 'assistant';
  text: string;
}

export function memoryRecallTool(
  kernel: KernelView,
  runs: RunMemories,
  embeddings: () => { model: EmbeddingModelLike; maxVectors: number } | undefined,
): Tool<{ query: string }> {
  return {
    name: MEMORY_RECALL_TOOL,
    description:
      "Searches what was said in this user's earlier conversations with you (not this one), by words" +
      ' (and by meaning when configured). Use it when the user refers to something from before. Returns matching messages with their date, best first.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: 500,
          description: 'Keywords or a question: messages with any of its words are found.',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    idempotent: true,
    async handler({ signal }, tc) {
      const run = runOf(runs, tc.runId, 'recall');
      const { limit } = run.memory.recall!;
      const scope = { ...run.scope, exceptSession: run.sessionId, limit };
      const found = await kernel.sessions.search({ ...scope, query: tc.input.query });
      const recalled: Recalled[] = found.map((hit) => ({
        session: hit.sessionId,
        when: new Date(hit.lastActive).toISOString(),
        role: hit.role,
        text: cut(hit.text),
      }));
      const semantic = embeddings();
      if (semantic) {
        const near = await searchVectors(kernel.store, semantic.model, run.scope, tc.input.query, {
          limit,
          maxVectors: semantic.maxVectors,
          exceptSession: run.sessionId,
          signal,
        });
        for (const hit of near) {
          const text = cut(hit.text);
          if (recalled.some((seen) => seen.session === hit.sessionId && seen.text === text)) continue;
          recalled.push({
            session: hit.sessionId,
            when: new Date(hit.at).toISOString(),
            role: hit.role,
            text,
          });
        }
      }
      return recalled.length > 0 ? recalled.slice(0, limit * 2) : 'nothing found in earlier conversations';
    },
  };
}

function cut(text: string): string {
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
}
