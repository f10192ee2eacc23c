/** How an agent is declared: a config `agents` entry, or what `kernel.createAgent()` receives. */
export interface AgentSpec {
  name: string;
  description?: string;
  instructions?: string;
  /** A model reference such as `'openai:gpt-4.1-mini'`. */
  model?: string;
  /** Registered tool names or globs (`'filesystem_*'`). */
  tools?: string[];
  maxSteps?: number;
  metadata?: Record<string, unknown>;
}

/** What kernel hooks see of a live agent. */
export interface AgentHandle {
  readonly id: string;
  readonly spec: AgentSpec;
}
