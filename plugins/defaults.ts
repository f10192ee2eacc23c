import type { HubosConfig, PluginOption } from '../core/index.ts';
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
 * the HubOS server plugin owns `server` and builds the server `hubos serve` starts.
 */
export function defaultPlugins(_config: HubosConfig): PluginOption[] {
  return [builtinTools(), openai(), anthropic(), offline(), defaultModel(), hubos()];
}
