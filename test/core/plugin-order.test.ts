import { describe, expect, it } from 'vitest';
import type { Plugin } from '../../core/index.ts';
import { orderPlugins } from '../../core/plugin-order.ts';
import { expectHubosError } from './helpers.ts';

function plugin(name: string, extra: Partial<Plugin> = {}): Plugin {
  return { name, apply() {}, ...extra };
}

const order = (plugins: Plugin[]) => orderPlugins(plugins).map((p) => p.name);

describe('orderPlugins: order', () => {
  it('keeps the given order when nothing else applies', () => {
    expect(order([plugin('c'), plugin('a'), plugin('b')])).toEqual(['c', 'a', 'b']);
  });

  it('puts enforce "pre" first and "post" last, keeping the given order inside each group', () => {
    const plugins = [
      plugin('post1', { enforce: 'post' }),
      plugin('normal1'),
      plugin('pre1', { enforce: 'pre' }),
      plugin('post2', { enforce: 'post' }),
      plugin('normal2'),
      plugin('pre2', { enforce: 'pre' }),
    ];
    expect(order(plugins)).toEqual(['pre1', 'pre2', 'normal1', 'normal2', 'post1', 'post2']);
  });

  it('applies a plugin after the plugins it depends on, even when listed before them', () => {
    const plugins = [plugin('app', { dependencies: ['db', 'cache'] }), plugin('cache'), plugin('db')];
    expect(order(plugins)).toEqual(['db', 'cache', 'app']);
  });

  it('follows dependencies transitively', () => {
    const plugins = [plugin('a', { dependencies: ['b'] }), plugin('b', { dependencies: ['c'] }), plugin('c')];
    expect(order(plugins)).toEqual(['c', 'b', 'a']);
  });

  it('applies a shared dependency once', () => {
    const plugins = [
      plugin('x', { dependencies: ['base'] }),
      plugin('y', { dependencies: ['base'] }),
      plugin('base'),
    ];
    expect(order(plugins)).toEqual(['base', 'x', 'y']);
  });

  it('lets a dependency win over enforce: a "pre" plugin still comes after what it needs', () => {
    const plugins = [plugin('core-dep'), plugin('early', { enforce: 'pre', dependencies: ['core-dep'] })];
    expect(order(plugins)).toEqual(['core-dep', 'early']);
  });

  it('does not change the array it was given', () => {
    const plugins = [plugin('b', { enforce: 'post' }), plugin('a', { enforce: 'pre' })];
    const copy = [...plugins];
    orderPlugins(plugins);
    expect(plugins).toEqual(copy);
  });

  it('accepts no plugins', () => {
    expect(orderPlugins([])).toEqual([]);
  });
});

describe('orderPlugins: errors', () => {
  it('rejects a duplicate name with PLUGIN_DUPLICATE naming the plugin', () => {
    const error = expectHubosError(
      () => orderPlugins([plugin('weather'), plugin('other'), plugin('weather')]),
      'PLUGIN_DUPLICATE',
    );
    expect(error.message).toContain('plugin "weather" is listed twice');
    expect(error.details.plugin).toBe('weather');
  });

  it('rejects a missing dependency naming the plugin and what it needs', () => {
    const error = expectHubosError(
      () => orderPlugins([plugin('cosmos', { dependencies: ['hubos'] })]),
      'PLUGIN_DEPENDENCY_MISSING',
    );
    expect(error.message).toContain('plugin "cosmos" depends on "hubos", which is not configured');
    expect(error.details).toEqual({ plugin: 'cosmos', dependency: 'hubos' });
  });

  it('rejects a dependency cycle and shows it', () => {
    const error = expectHubosError(
      () =>
        orderPlugins([
          plugin('a', { dependencies: ['b'] }),
          plugin('b', { dependencies: ['c'] }),
          plugin('c', { dependencies: ['a'] }),
        ]),
      'PLUGIN_DEPENDENCY_CYCLE',
    );
    expect(error.message).toContain('a -> b -> c -> a');
  });

  it('rejects a plugin that depends on itself', () => {
    const error = expectHubosError(
      () => orderPlugins([plugin('selfish', { dependencies: ['selfish'] })]),
      'PLUGIN_DEPENDENCY_CYCLE',
    );
    expect(error.message).toContain('selfish -> selfish');
  });

  it('shows only the cycle, not the path that led to it', () => {
    const error = expectHubosError(
      () =>
        orderPlugins([
          plugin('entry', { dependencies: ['x'] }),
          plugin('x', { dependencies: ['y'] }),
          plugin('y', { dependencies: ['x'] }),
        ]),
      'PLUGIN_DEPENDENCY_CYCLE',
    );
    expect(error.message).toMatch(/cycle: x -> y -> x$/);
  });

  it.each(['', '   '])('rejects an empty plugin name %j', (name) => {
    expectHubosError(() => orderPlugins([plugin(name)]), 'PLUGIN_INVALID');
  });
});
