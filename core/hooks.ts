import { AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import type { AgentHandle, AgentSpec } from './agent/spec.ts';
import type { HubosConfig } from './index.ts';
import type { ModelRegistry } from './model/registry.ts';
import type { Plugin } from './plugin.ts';
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
    beforeClose: new AsyncSeriesHook<[CloseContext], TapMeta>(['context']),
    close: new AsyncSeriesHook<[CloseContext], TapMeta>(['context']),
  });
}
