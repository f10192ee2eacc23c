import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import type { ToolCallContext, ToolCallDecision } from './agent/agent-hooks.ts';
import type { AgentHandle, AgentSpec } from './agent/spec.ts';
import type { CallSurface } from './call-surface.ts';
import { createWrapHook, type WrapHook } from './hook-utils.ts';
import type { HubosConfig } from './index.ts';
import type { ModelRegistry } from './model/registry.ts';
import type { Plugin } from './plugin.ts';
import type { ToolResult } from './tools/execute.ts';
import type { Registry } from './tools/registry.ts';
import type { Tool } from './tools/tool.ts';

/** Extra tap options: which plugin made the tap (set by the plugin's kernel view). */
export interface TapMeta {
  plugin?: string;
}

/** What `configResolved` taps get: the config after the `config` hook, defaults applied and validated. */
export interface ConfigResolvedContext {
  config: HubosConfig;
  /** The file the config came from; undefined when the built-in defaults are in use. */
  configFile: string | undefined;
}

/** What `pluginsApplied` taps get: every plugin, in apply order. */
export interface PluginsAppliedContext {
  plugins: readonly Plugin[];
}

/** What `toolRegistered` taps get: one tool, registered at boot or later. */
export interface ToolRegisteredContext {
  tool: Tool;
}

/** What `resolveTools` taps get and return: one agent's spec and the tools it may see. */
export interface ResolveToolsContext {
  agent: AgentSpec;
  tools: Tool[];
}

/** What `ready` taps get: the resolved config. */
export interface ReadyContext {
  config: HubosConfig;
}

/** What `agentCreated` and `agentDestroy` taps get: the agent. */
export interface AgentLifecycleContext {
  agent: AgentHandle;
}

/** What `beforeClose` and `close` taps get: why the kernel closes. */
export interface CloseContext {
  reason: string;
}

/**
 * One tool call wherever it comes from — an agent's run, an MCP `tools/call`, a workflow's tool
 * step, a Stars member, a sub-agent: what the kernel's tool-call hooks get. It is the agent hooks'
 * context (`run`, `step`, `call`) and who the call is for, which run it belongs to and where it came from.
 */
export interface KernelToolCallContext extends ToolCallContext {
  /** The run the call belongs to (`run.runId`): an agent's, a workflow's, or one of its own (MCP). */
  runId: string;
  /** Who the call is for: the caller's principal id (`key:…`, `local`), when its caller said. */
  principal: string | undefined;
  /** Where the call came from. */
  via: CallSurface;
}

/** What kernel `afterToolCall` taps get: the call and its result (an error result included). */
export interface KernelAfterToolCallContext extends KernelToolCallContext {
  result: ToolResult;
}

/** What kernel `toolError` taps get: the call and the error its caller is told. */
export interface KernelToolErrorContext extends KernelToolCallContext {
  error: { code: string; message: string };
}

/** The kernel's hooks. Promise style only; one context object per hook. */
export interface KernelHooks {
  /** Waterfall over the config object: return a new config (or nothing to keep it). */
  readonly config: AsyncSeriesWaterfallHook<[HubosConfig], HubosConfig, TapMeta>;
  readonly configResolved: AsyncSeriesHook<[ConfigResolvedContext], TapMeta>;
  readonly pluginsApplied: AsyncSeriesHook<[PluginsAppliedContext], TapMeta>;
  /** Called with the Registry: plugins `registry.register(...)` their tools here. */
  readonly registerTools: AsyncSeriesHook<[Registry], TapMeta>;
  readonly toolRegistered: AsyncSeriesHook<[ToolRegisteredContext], TapMeta>;
  /** Waterfall over the tools one agent may see. */
  readonly resolveTools: AsyncSeriesWaterfallHook<[ResolveToolsContext], ResolveToolsContext, TapMeta>;
  readonly registerModels: AsyncSeriesHook<[ModelRegistry], TapMeta>;
  readonly ready: AsyncSeriesHook<[ReadyContext], TapMeta>;
  /** Waterfall over the spec of an agent about to be built. */
  readonly agentCreate: AsyncSeriesWaterfallHook<[AgentSpec], AgentSpec, TapMeta>;
  /** Where plugins tap the new agent's own hooks. */
  readonly agentCreated: AsyncSeriesHook<[AgentLifecycleContext], TapMeta>;
  readonly agentDestroy: AsyncSeriesHook<[AgentLifecycleContext], TapMeta>;
  /**
   * Every tool call, after the permission policy let it through and before the calling agent's
   * own `beforeToolCall`. Bail: return `{ deny: reason }` or `{ result }` to skip the tool.
   */
  readonly beforeToolCall: AsyncSeriesBailHook<
    [KernelToolCallContext],
    ToolCallDecision | undefined,
    TapMeta
  >;
  /** Wraps every tool call, around the calling agent's own `wrapToolCall` (earliest tap outermost). */
  readonly wrapToolCall: WrapHook<KernelToolCallContext, ToolResult>;
  /** Every call's result, after the calling agent's `afterToolCall`. */
  readonly afterToolCall: AsyncSeriesHook<[KernelAfterToolCallContext], TapMeta>;
  /** Every call that failed or was refused, after the calling agent's `toolError`. */
  readonly toolError: AsyncSeriesHook<[KernelToolErrorContext], TapMeta>;
  readonly beforeClose: AsyncSeriesHook<[CloseContext], TapMeta>;
  readonly close: AsyncSeriesHook<[CloseContext], TapMeta>;
}

export type KernelHookName = keyof KernelHooks;

/** A fresh set of kernel hooks (one per kernel). */
export function createKernelHooks(): KernelHooks {
  return Object.freeze({
    config: new AsyncSeriesWaterfallHook<[HubosConfig], HubosConfig, TapMeta>(['config']),
    configResolved: new AsyncSeriesHook<[ConfigResolvedContext], TapMeta>(['context']),
    pluginsApplied: new AsyncSeriesHook<[PluginsAppliedContext], TapMeta>(['context']),
    registerTools: new AsyncSeriesHook<[Registry], TapMeta>(['registry']),
    toolRegistered: new AsyncSeriesHook<[ToolRegisteredContext], TapMeta>(['context']),
    resolveTools: new AsyncSeriesWaterfallHook<[ResolveToolsContext], ResolveToolsContext, TapMeta>([
      'context',
    ]),
    registerModels: new AsyncSeriesHook<[ModelRegistry], TapMeta>(['models']),
    ready: new AsyncSeriesHook<[ReadyContext], TapMeta>(['context']),
    agentCreate: new AsyncSeriesWaterfallHook<[AgentSpec], AgentSpec, TapMeta>(['spec']),
    agentCreated: new AsyncSeriesHook<[AgentLifecycleContext], TapMeta>(['context']),
    agentDestroy: new AsyncSeriesHook<[AgentLifecycleContext], TapMeta>(['context']),
    beforeToolCall: new AsyncSeriesBailHook<[KernelToolCallContext], ToolCallDecision | undefined, TapMeta>([
      'call',
    ]),
    wrapToolCall: createWrapHook<KernelToolCallContext, ToolResult>('call'),
    afterToolCall: new AsyncSeriesHook<[KernelAfterToolCallContext], TapMeta>(['call']),
    toolError: new AsyncSeriesHook<[KernelToolErrorContext], TapMeta>(['call']),
    beforeClose: new AsyncSeriesHook<[CloseContext], TapMeta>(['context']),
    close: new AsyncSeriesHook<[CloseContext], TapMeta>(['context']),
  });
}
