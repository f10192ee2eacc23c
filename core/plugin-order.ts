import { HubosError } from './errors.ts';
import type { Plugin } from './plugin.ts';

const ENFORCE_RANK = { pre: 0, undefined: 1, post: 2 } as const;

/**
 * Checks names and dependencies, then orders plugins: `pre` first, `post` last, the given order
 * otherwise, and every plugin after the plugins it depends on.
 */
export function orderPlugins(plugins: readonly Plugin[]): Plugin[] {
  const byName = new Map<string, Plugin>();
  for (const plugin of plugins) {
    if (plugin.name.trim() === '') throw new HubosError('PLUGIN_INVALID', 'a plugin has an empty name');
    if (byName.has(plugin.name)) {
      throw new HubosError(
        'PLUGIN_DUPLICATE',
        `plugin "${plugin.name}" is listed twice: each plugin may appear once (check config "plugins" and kernel.use())`,
        { details: { plugin: plugin.name } },
      );
    }
    byName.set(plugin.name, plugin);
  }
  for (const plugin of plugins) {
    for (const dependency of plugin.dependencies ?? []) {
      if (!byName.has(dependency)) {
        throw new HubosError(
          'PLUGIN_DEPENDENCY_MISSING',
          `plugin "${plugin.name}" depends on "${dependency}", which is not configured: add "${dependency}" to "plugins"`,
          { details: { plugin: plugin.name, dependency } },
        );
      }
    }
  }
  const ranked = [...plugins].sort((a, b) => ENFORCE_RANK[`${a.enforce}`] - ENFORCE_RANK[`${b.enforce}`]);
  const ordered: Plugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: Plugin, path: string[]): void => {
    const seen = state.get(plugin.name);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(plugin.name)), plugin.name].join(' -> ');
      throw new HubosError('PLUGIN_DEPENDENCY_CYCLE', `plugin dependencies form a cycle: ${cycle}`, {
        details: { plugin: plugin.name },
      });
    }
    state.set(plugin.name, 'visiting');
    for (const dependency of plugin.dependencies ?? [])
      visit(byName.get(dependency)!, [...path, plugin.name]);
    state.set(plugin.name, 'done');
    ordered.push(plugin);
  };
  for (const plugin of ranked) visit(plugin, []);
  return ordered;
}
