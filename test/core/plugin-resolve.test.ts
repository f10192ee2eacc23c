import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { definePlugin, isPlugin, type Plugin, type PluginOption } from '../../core/index.ts';
import { describeNotPlugin } from '../../core/plugin.ts';
import { resolvePlugins } from '../../core/plugin-resolve.ts';
import { expectHubosRejection } from './helpers.ts';

const pluginsDir = fileURLToPath(new URL('../fixtures/plugins/', import.meta.url));
const configDir = fileURLToPath(new URL('../fixtures/config/', import.meta.url));

const plugin = (name: string): Plugin => ({ name, apply() {} });
const resolveNames = async (options: PluginOption[], baseDir = pluginsDir) =>
  (await resolvePlugins(options, baseDir)).map((p) => p.name);

describe('definePlugin and isPlugin', () => {
  it('definePlugin returns a plugin or a factory unchanged', () => {
    const object = { name: 'x', apply() {} };
    const factory = (options?: { level: number }) => ({ name: `x${options?.level ?? 0}`, apply() {} });
    expect(definePlugin(object)).toBe(object);
    expect(definePlugin(factory)).toBe(factory);
  });

  it.each([
    [{ name: 'x', apply() {} }, true],
    [{ name: 'x' }, false],
    [{ apply() {} }, false],
    [{ name: 1, apply() {} }, false],
    [() => ({ name: 'x', apply() {} }), false],
    [null, false],
    ['x', false],
  ])('isPlugin(%o) is %s', (value, expected) => {
    expect(isPlugin(value)).toBe(expected);
  });

  it('describeNotPlugin tells what is missing', () => {
    expect(describeNotPlugin(null)).toBe('got null');
    expect(describeNotPlugin(42)).toBe('got number');
    expect(describeNotPlugin({ apply() {} })).toBe('it has no "name" string');
    expect(describeNotPlugin({ name: 'w' })).toBe('plugin "w" has no apply(kernel) function');
  });
});

describe('resolvePlugins: plugin objects, falsy entries and nested arrays', () => {
  it('keeps plugin objects as they are, in order', async () => {
    const a = plugin('a');
    const b = plugin('b');
    const resolved = await resolvePlugins([a, b], pluginsDir);
    expect(resolved).toEqual([a, b]);
    expect(resolved[0]).toBe(a);
  });

  it('skips false, null, undefined and empty strings (e.g. `isProd && plugin()`)', async () => {
    expect(await resolveNames([false, plugin('a'), null, undefined, '', plugin('b')])).toEqual(['a', 'b']);
  });

  it('flattens nested arrays at any depth, keeping the order', async () => {
    const options: PluginOption[] = [
      plugin('a'),
      [plugin('b'), [plugin('c'), false, [plugin('d')]]],
      plugin('e'),
    ];
    expect(await resolveNames(options)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('reads [plugin, plugin] as a list of plugins, not a specifier with options', async () => {
    expect(await resolveNames([[plugin('a'), plugin('b')]])).toEqual(['a', 'b']);
  });

  it('reads ["./a.ts", "./b.ts"] as two specifiers, not a specifier with options', async () => {
    expect(await resolveNames([['./good-plugin.ts', './plain-js-plugin.js']])).toEqual([
      'fixture-good',
      'fixture-plain-js',
    ]);
  });

  it('refuses a factory that was not called, saying how to fix it', async () => {
    function weatherPlugin() {
      return plugin('weather');
    }
    const error = await expectHubosRejection(
      resolvePlugins([plugin('ok'), weatherPlugin as never], pluginsDir),
      'PLUGIN_INVALID',
    );
    expect(error.message).toContain('plugins[1]: got a plugin factory, not a plugin');
    expect(error.message).toContain('weatherPlugin()');
  });

  it.each([
    ['an object without apply', { name: 'half' }, 'plugin "half" has no apply(kernel) function'],
    ['an object without name', { apply() {} }, 'it has no "name" string'],
    ['a number', 42, 'got number'],
    ['true', true, 'got boolean'],
  ])('refuses %s, saying where it is and what is wrong', async (_label, value, why) => {
    const error = await expectHubosRejection(
      resolvePlugins([plugin('ok'), [value as never]], pluginsDir),
      'PLUGIN_INVALID',
    );
    expect(error.message).toContain(
      'plugins[1][0]: expected a plugin, a module specifier or [specifier, options]',
    );
    expect(error.message).toContain(why);
  });
});

describe('resolvePlugins: string specifiers', () => {
  it('imports a local .ts file whose default export is a plugin', async () => {
    const [loaded] = await resolvePlugins(['./good-plugin.ts'], pluginsDir);
    expect(loaded).toMatchObject({ name: 'fixture-good', version: '1.2.3' });
  });

  it('imports a local plain .js plugin', async () => {
    expect(await resolveNames(['./plain-js-plugin.js'])).toEqual(['fixture-plain-js']);
  });

  it('resolves relative specifiers from the config folder, not from the process cwd', async () => {
    expect(await resolveNames(['../plugins/good-plugin.ts'], configDir)).toEqual(['fixture-good']);
    await expectHubosRejection(resolvePlugins(['./good-plugin.ts'], configDir), 'PLUGIN_NOT_FOUND');
  });

  it('accepts an absolute path', async () => {
    expect(await resolveNames([`${pluginsDir}good-plugin.ts`], '/')).toEqual(['fixture-good']);
  });

  it('calls a default-exported factory without options', async () => {
    const [loaded] = await resolvePlugins(['./factory-plugin.ts'], pluginsDir);
    expect(loaded).toMatchObject({ name: 'fixture-greeter-default', received: undefined });
  });

  it('calls a default-exported factory with the options of [specifier, options]', async () => {
    const options = { greeting: 'hello' };
    const [loaded] = await resolvePlugins([['./factory-plugin.ts', options]], pluginsDir);
    expect(loaded).toMatchObject({ name: 'fixture-greeter-hello' });
    expect((loaded as Plugin & { received: unknown }).received).toBe(options);
  });

  it('calls the factory once per entry, so one file can give differently configured plugins', async () => {
    expect(
      await resolveNames([
        ['./factory-plugin.ts', { greeting: 'a' }],
        ['./factory-plugin.ts', { greeting: 'b' }],
      ]),
    ).toEqual(['fixture-greeter-a', 'fixture-greeter-b']);
  });

  it('awaits an async factory', async () => {
    expect(await resolveNames([['./async-factory-plugin.ts', { suffix: 'x' }]])).toEqual(['fixture-async-x']);
  });

  it('flattens a factory that returns a list of plugins', async () => {
    expect(await resolveNames(['./multi-plugin.ts'])).toEqual(['fixture-multi-one', 'fixture-multi-two']);
  });

  it('mixes specifiers and objects, keeping the order given', async () => {
    expect(
      await resolveNames([
        plugin('first'),
        './good-plugin.ts',
        [plugin('third'), ['./factory-plugin.ts', {}]],
      ]),
    ).toEqual(['first', 'fixture-good', 'third', 'fixture-greeter-default']);
  });
});

describe('resolvePlugins: specifier errors', () => {
  it('a missing local file is PLUGIN_NOT_FOUND naming the specifier and the full path', async () => {
    const error = await expectHubosRejection(resolvePlugins(['./nope.ts'], pluginsDir), 'PLUGIN_NOT_FOUND');
    expect(error.message).toContain('plugin "./nope.ts" not found');
    expect(error.message).toContain(`${pluginsDir}nope.ts`);
    expect(error.details.plugin).toBe('./nope.ts');
  });

  it('a package that is not installed is PLUGIN_NOT_FOUND saying how to install it', async () => {
    const error = await expectHubosRejection(
      resolvePlugins(['hubos-plugin-surely-not-installed'], pluginsDir),
      'PLUGIN_NOT_FOUND',
    );
    expect(error.message).toContain('plugin "hubos-plugin-surely-not-installed" cannot be resolved from');
    expect(error.message).toContain('npm install hubos-plugin-surely-not-installed');
  });

  it('a default export that is neither plugin nor factory is PLUGIN_INVALID listing what the module exports', async () => {
    const error = await expectHubosRejection(
      resolvePlugins(['./not-a-plugin.ts'], pluginsDir),
      'PLUGIN_INVALID',
    );
    expect(error.message).toContain(
      'plugin "./not-a-plugin.ts" must default-export a plugin or a plugin factory',
    );
    expect(error.message).toContain('its default export is an object');
    expect(error.message).toMatch(/it exports: .*helper/);
  });

  it('a module without a default export is PLUGIN_INVALID saying so', async () => {
    const error = await expectHubosRejection(
      resolvePlugins(['./no-default-export.ts'], pluginsDir),
      'PLUGIN_INVALID',
    );
    expect(error.message).toContain('its default export is nothing (it exports: plugin)');
  });

  it('a factory that throws is PLUGIN_LOAD_FAILED naming the plugin and the cause', async () => {
    const error = await expectHubosRejection(
      resolvePlugins(['./throwing-factory.ts'], pluginsDir),
      'PLUGIN_LOAD_FAILED',
    );
    expect(error.message).toBe('plugin "./throwing-factory.ts": its factory threw: factory exploded');
    expect((error.cause as Error).message).toBe('factory exploded');
  });

  it('a function that returns no plugin is PLUGIN_INVALID saying what it returned', async () => {
    const error = await expectHubosRejection(
      resolvePlugins(['./factory-returns-nothing.ts'], pluginsDir),
      'PLUGIN_INVALID',
    );
    expect(error.message).toContain('its default export is a function but returned nothing, not a plugin');
  });

  it('a module that throws while importing is PLUGIN_LOAD_FAILED naming the plugin', async () => {
    const error = await expectHubosRejection(
      resolvePlugins(['./throws-on-import.ts'], pluginsDir),
      'PLUGIN_LOAD_FAILED',
    );
    expect(error.message).toContain('plugin "./throws-on-import.ts" failed to load: broken at import time');
  });

  it('options for a module that exports a plugin object are PLUGIN_INVALID', async () => {
    const error = await expectHubosRejection(
      resolvePlugins([['./good-plugin.ts', { level: 1 }]], pluginsDir),
      'PLUGIN_INVALID',
    );
    expect(error.message).toContain('exports a plugin object, which takes no options');
  });
});
