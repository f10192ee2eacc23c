import { type HubosConfig, isPlugin, type PluginOption } from '../core/index.ts';
import builtinTools from './builtin-tools/index.ts';
import hubos from './hubos/index.ts';
import anthropic from './models/anthropic.ts';
import defaultModel from './models/default-model.ts';
import offline from './models/offline.ts';
import openai from './models/openai.ts';

/**
 * The built-in plugins a config turns on, in one place: each config key that a built-in plugin
 * owns maps to that plugin here. The `hubos` command applies these before the config's own plugins.
 * The built-in tools are always registered (agents see only those they select; the permission
 * policy governs their calls). The model providers are always on: each only reads its key (`openai`, `anthropic`) when called;
 * the HubOS server plugin owns `server` and builds the server `hubos serve` starts. The subagent
 * plugin (the `task` tool) is on when the config uses it: its keys `subagents` or `task`, or an
 * agent whose `tools` name `task` — unless the config's `plugins` add it themselves (with options).
 * Cosmos (agent lifecycle, its `/api/cosmos` routes) is on when the config has a `cosmos` key, likewise.
 * Stars (teams of agents, `/api/stars`) is on when the config has a `stars` key; it needs Cosmos, so
 * a `stars` key turns Cosmos on too. MCP (servers' tools in the registry, HubOS tools at `/mcp`) is on
 * when the config has an `mcp` key; workflows (`/api/workflows`) when it has a `workflows` key.
 * A plugin the config does not turn on is not even loaded: each of those is imported here only when
 * it is on, so a one-agent server never loads MCP, the workflow engine or the teams.
 */
export function defaultPlugins(config: HubosConfig): PluginOption[] {
  return [
    builtinTools(),
    usesSubagents(config) && import('./subagent/index.ts').then(({ default: subagent }) => subagent()),
    openai(),
    anthropic(),
    offline(),
    defaultModel(),
    usesCosmos(config) && import('./cosmos/index.ts').then(({ default: cosmos }) => cosmos()),
    usesStars(config) && import('./stars/index.ts').then(({ default: stars }) => stars()),
    config.mcp !== undefined &&
      !hasPlugin(config.plugins, 'mcp') &&
      import('./mcp/index.ts').then(({ default: mcp }) => mcp()),
    usesMemory(config) && import('./memory/index.ts').then(({ default: memory }) => memory()),
    config.workflows !== undefined &&
      !hasPlugin(config.plugins, 'workflows') &&
      import('./workflows/index.ts').then(({ default: workflows }) => workflows()),
    hubos(),
  ];
}

function usesSubagents(config: HubosConfig): boolean {
  const wanted =
    config.subagents !== undefined ||
    config.task !== undefined ||
    Object.values(config.agents ?? {}).some((agent) => agent.tools?.includes('task'));
  return wanted && !hasPlugin(config.plugins, 'subagent');
}

function usesMemory(config: HubosConfig): boolean {
  const wanted =
    config.memory !== undefined ||
    Object.values(config.agents ?? {}).some((agent) => agent.memory !== undefined && agent.memory !== false);
  return wanted && !hasPlugin(config.plugins, 'memory');
}

function usesCosmos(config: HubosConfig): boolean {
  return (config.cosmos !== undefined || config.stars !== undefined) && !hasPlugin(config.plugins, 'cosmos');
}

function usesStars(config: HubosConfig): boolean {
  return config.stars !== undefined && !hasPlugin(config.plugins, 'stars');
}

function hasPlugin(plugins: readonly PluginOption[] | undefined, name: string): boolean {
  return (plugins ?? []).some((option) =>
    Array.isArray(option)
      ? hasPlugin(option as readonly PluginOption[], name)
      : isPlugin(option) && option.name === name,
  );
}
