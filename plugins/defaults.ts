import type { HubosConfig, PluginOption } from '../core/index.ts';
import defaultModel from './models/default-model.ts';
import offline from './models/offline.ts';

/**
 * The built-in plugins a config turns on, in one place: each config key that a built-in plugin
 * owns maps to that plugin here. The `hubos` command applies these before the config's own plugins.
 */
export function defaultPlugins(_config: HubosConfig): PluginOption[] {
  return [offline(), defaultModel()];
}
