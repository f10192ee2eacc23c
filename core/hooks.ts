import { AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import type { AgentHandle, AgentSpec } from './agent/spec.ts';
import type { HubosConfig } from './config.ts';
import type { ModelRegistry } from './model/registry.ts';
import type { Plugin } from './plugin.ts';
import type { Registry } from './tools/registry.ts';
import type { Tool } from './tools/tool.ts';

/** Extra tap options: which plugin made the tap (set by the plugin's kernel view). */
export interface TapMeta {
  plugin?: string;
}

export interface ConfigResolvedContext {
  config: HubosConfig;
  /** The file the config came from; undefined when the built-in defaults are in use. */
  configFile: string | undefined;
}

export interface ResolveToolsContext {
  agent: AgentSpec;
  tools: Tool[];
}

/** The kernel's hooks. Promise style only; one context object per hook. */
export function createKernelHooks() {
  return Object.freeze({
    /** Waterfall over the config object: return a new config (or nothing to keep it). */
    config: new AsyncSeriesWaterfallHook<[HubosConfig], HubosConfig, TapMeta>(['config']),
    configResolved: new AsyncSeriesHook<[ConfigResolvedContext], TapMeta>(['context']),
    pluginsApplied: new AsyncSeriesHook<[{ plugins: readonly Plugin[] }], TapMeta>(['context']),
    /** Called with the Registry: plugins `registry.register(...)` their tools here. */
    registerTools: new AsyncSeriesHook<[Registry], TapMeta>(['registry']),
    toolRegistered: new AsyncSeriesHook<[{ tool: Tool }], TapMeta>(['context']),
    /** Waterfall over the tools one agent may see. */
    resolveTools: new AsyncSeriesWaterfallHook<[ResolveToolsContext], ResolveToolsContext, TapMeta>([
      'context',
    ]),
    registerModels: new AsyncSeriesHook<[ModelRegistry], TapMeta>(['models']),
    ready: new AsyncSeriesHook<[{ config: HubosConfig }], TapMeta>(['context']),
    /** Waterfall over the spec of an agent about to be built. */
    agentCreate: new AsyncSeriesWaterfallHook<[AgentSpec], AgentSpec, TapMeta>(['spec']),
    /** Where plugins tap the new agent's own hooks. */
    agentCreated: new AsyncSeriesHook<[{ agent: AgentHandle }], TapMeta>(['context']),
    agentDestroy: new AsyncSeriesHook<[{ agent: AgentHandle }], TapMeta>(['context']),
    beforeClose: new AsyncSeriesHook<[{ reason: string }], TapMeta>(['context']),
    close: new AsyncSeriesHook<[{ reason: string }], TapMeta>(['context']),
  });
}

export type KernelHooks = ReturnType<typeof createKernelHooks>;
export type KernelHookName = keyof KernelHooks;
