import type { MemoryScope, ResolvedMemory } from '../../core/index.ts';

/** What a run with memory holds while it runs: its scope, its session, and its working memory as read. */
export interface RunMemory {
  scope: MemoryScope;
  sessionId: string | undefined;
  memory: ResolvedMemory;
  /** The document as read at the run's start, then as the run rewrote it. */
  working: string | undefined;
}

/** The runs with memory going on in this process, by run id: what the memory tools act for. */
export class RunMemories {
  readonly #runs = new Map<string, RunMemory>();

  set(runId: string, memory: RunMemory): void {
    this.#runs.set(runId, memory);
  }

  get(runId: string | undefined): RunMemory | undefined {
    return runId === undefined ? undefined : this.#runs.get(runId);
  }

  delete(runId: string): void {
    this.#runs.delete(runId);
  }
}
