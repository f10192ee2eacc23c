import type { Agent } from './agent/agent.ts';
import type { Approvals } from './agent/approvals.ts';
import type { Sessions } from './agent/sessions.ts';
import type { AgentSpec } from './agent/spec.ts';
import type { Bus } from './bus/bus.ts';
import type { ScorerRegistry } from './evals/scorer-registry.ts';
import type { GuardrailRegistry } from './guardrails/registry.ts';
import type { TapOnlyHooks } from './hook-utils.ts';
import type { KernelHooks } from './hooks.ts';
import type { HubosConfig } from './index.ts';
import type { Instance } from './instance.ts';
import type { Logger } from './logger.ts';
import type { ModelRegistry } from './model/registry.ts';
import type { PromptRegistry } from './prompts/registry.ts';
import type { ResourceRegistry } from './resources/registry.ts';
import type { RunEngine } from './runs/run-engine.ts';
import type { Sandbox } from './sandbox/sandbox.ts';
import type { ServiceName, ServiceOf } from './services.ts';
import type { Store } from './store/store.ts';
import type { ToolCalls } from './tool-calls.ts';
import type { Registry } from './tools/registry.ts';

/**
 * Links a plugin's view to its kernel, for hook accessors keyed by kernel.
 * @internal
 */
export const KERNEL_OF = Symbol.for('hubos.kernel-of');
/**
 * The plugin a kernel view belongs to, so taps made through it are attributed to the plugin.
 * @internal
 */
export const PLUGIN_OF = Symbol.for('hubos.plugin-of');

/** What a plugin's `apply(kernel)` receives: the kernel, with tap-only hooks attributed to the plugin. */
export interface KernelView {
  readonly hooks: TapOnlyHooks<KernelHooks>;
  readonly registry: Registry;
  /** Where every tool call runs: `tools.call()` takes a call through the policy and the tool-call hooks. */
  readonly tools: ToolCalls;
  /** The guardrails configs may name: `guardrails.register(name, options => guardrail)` in `apply()`. */
  readonly guardrails: GuardrailRegistry;
  /** Resources and resource templates the app offers (MCP serves them), registered as tools are. */
  readonly resources: ResourceRegistry;
  /** Prompts the app offers (MCP serves them), registered as tools are. */
  readonly prompts: PromptRegistry;
  readonly models: ModelRegistry;
  /** Scorers evals may name: register yours here (`register(name, factory)`). */
  readonly scorers: ScorerRegistry;
  /** The config as loaded (before the `config` hook runs; resolved after it). */
  readonly config: HubosConfig;
  readonly configFile: string | undefined;
  readonly cwd: string;
  readonly mode: string;
  readonly command: string;
  readonly logger: Logger;
  /** Available once boot has opened them (from `configResolved` on). */
  readonly store: Store;
  /** What joins instances of one service: messages, run events, counters, the run queue. */
  readonly bus: Bus;
  /** This process as one instance of the service (its id, its heartbeat). */
  readonly instance: Instance;
  readonly sessions: Sessions;
  readonly sandbox: Sandbox;
  /** Tool calls waiting for a human approval, across the kernel's agents. */
  readonly approvals: Approvals;
  /** The kernel's run engine: every run, whichever face (server, workflows, teams) started it. */
  readonly runs: RunEngine;
  createAgent(spec: AgentSpec): Promise<Agent>;
  getAgent(id: string): Agent | undefined;
  agent(id: string): Agent;
  listAgents(): Agent[];
  destroyAgent(id: string): Promise<boolean>;
  /** Provides a service to the other plugins (once per name; declare it in the plugin's `provides`). */
  provide<N extends ServiceName>(name: N, value: ServiceOf<N>): void;
  /** A service another plugin provides; throws naming the plugin to add when none does. */
  service<N extends ServiceName>(name: N): ServiceOf<N>;
  hasService(name: ServiceName): boolean;
  /** @internal */
  readonly [KERNEL_OF]: object;
  /** @internal */
  readonly [PLUGIN_OF]?: string;
}
