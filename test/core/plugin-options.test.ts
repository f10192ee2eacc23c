import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import { definePlugin, HubosError, type Plugin, type PluginOption } from '../../core/index.ts';
import { resolvePlugins } from '../../core/plugin-resolve.ts';
import { hubos, ROOT, tempDir, writeFiles } from '../helpers/run.ts';
import { expectHubosError, expectHubosRejection } from './helpers.ts';

const diceSchema = {
  type: 'object',
  properties: {
    greeting: { type: 'string', default: 'Hello' },
    sides: { type: 'integer', minimum: 2, default: 6 },
  },
  additionalProperties: false,
} as const;

/** A dice plugin whose factory records the options it was given. */
function jsonDice(seen = vi.fn()) {
  return definePlugin({ name: 'dice', optionsSchema: diceSchema }, (options) => {
    seen(options);
    return { name: 'dice', apply() {} };
  });
}

const zodSchema = z.strictObject({
  greeting: z.string().default('Hello'),
  sides: z.number().int().min(2).default(6),
});

function zodDice(seen = vi.fn()) {
  return definePlugin({ name: 'dice', optionsSchema: zodSchema }, (options) => {
    seen(options);
    return { name: 'dice', apply() {} };
  });
}

describe('definePlugin with a JSON Schema for its options', () => {
  it('types the options from the schema: defaults present inside, optional for the caller', () => {
    definePlugin({ optionsSchema: diceSchema }, (options) => {
      expectTypeOf(options).toEqualTypeOf<{ greeting: string; sides: number }>();
      return { name: 'dice', apply() {} };
    });
    const dice = jsonDice();
    expectTypeOf(dice).parameter(0).toEqualTypeOf<{ greeting?: string; sides?: number } | undefined>();
    expectTypeOf(dice()).toEqualTypeOf<{ name: string; apply(): void }>();
    // @ts-expect-error sides is a number
    expect(() => dice({ sides: 'twenty' })).toThrow();
  });

  it('applies the defaults before the factory runs, leaving the caller’s object as it was', () => {
    const seen = vi.fn();
    const dice = jsonDice(seen);
    expect(dice()).toMatchObject({ name: 'dice' });
    expect(seen).toHaveBeenLastCalledWith({ greeting: 'Hello', sides: 6 });
    const given = { sides: 20 };
    dice(given);
    expect(seen).toHaveBeenLastCalledWith({ greeting: 'Hello', sides: 20 });
    expect(given).toEqual({ sides: 20 });
  });

  it('refuses bad options before the factory runs: the plugin, the option, what was expected and given', () => {
    const seen = vi.fn();
    const dice = jsonDice(seen);
    const wrongType = expectHubosError(() => dice({ sides: 'twenty' as never }), 'PLUGIN_OPTIONS_INVALID');
    expect(wrongType.message).toBe('plugin "dice": option "sides" must be integer, got string "twenty"');
    const typo = expectHubosError(() => dice({ greting: 'Ahoy' } as never), 'PLUGIN_OPTIONS_INVALID');
    expect(typo.message).toBe('plugin "dice": unknown option "greting" (did you mean "greeting"?)');
    const far = expectHubosError(() => dice({ colour: 'red' } as never), 'PLUGIN_OPTIONS_INVALID');
    expect(far.message).toBe('plugin "dice": unknown option "colour" (allowed: greeting, sides)');
    const bound = expectHubosError(() => dice({ sides: 1 }), 'PLUGIN_OPTIONS_INVALID');
    expect(bound.message).toBe('plugin "dice": option "sides" must be >= 2, got integer 1');
    expect(bound.details).toEqual({
      plugin: 'dice',
      problems: ['option "sides" must be >= 2, got integer 1'],
    });
    const notAnObject = expectHubosError(() => dice('six' as never), 'PLUGIN_OPTIONS_INVALID');
    expect(notAnObject.message).toBe('plugin "dice": the options must be object, got string "six"');
    expect(seen).not.toHaveBeenCalled();
  });

  it('names a missing required option, nested options by their path', () => {
    const api = definePlugin(
      {
        name: 'api',
        optionsSchema: {
          type: 'object',
          properties: {
            apiKey: { type: 'string' },
            retry: { type: 'object', properties: { times: { type: 'integer' } } },
          },
          required: ['apiKey'],
        },
      },
      (options) => ({ name: `api-${options.apiKey}`, apply() {} }),
    );
    // @ts-expect-error apiKey is required, so the options are too
    expect(() => api()).toThrow('plugin "api": missing required option "apiKey"');
    expect(() => api({ apiKey: 'k', retry: { times: 1.5 } })).toThrow(
      'plugin "api": option "retry.times" must be integer, got number 1.5',
    );
  });

  it('refuses, at definition, an options schema that is not valid JSON Schema', () => {
    const error = expectHubosError(
      () =>
        definePlugin({ name: 'bad', optionsSchema: { type: 'objekt' } as never }, () => ({
          name: 'bad',
          apply() {},
        })),
      'PLUGIN_INVALID',
    );
    expect(error.message).toContain('plugin "bad": optionsSchema is not a valid JSON Schema');
  });

  it('keeps definePlugin(plugin) and definePlugin(factory) as they were', () => {
    const plugin = { name: 'x', apply() {} };
    const factory = (options?: { level: number }) => ({ name: `x${options?.level ?? 0}`, apply() {} });
    expect(definePlugin(plugin)).toBe(plugin);
    expect(definePlugin(factory)).toBe(factory);
  });
});

describe('definePlugin with a zod schema for its options', () => {
  it('types the options as the schema’s output inside and its input for the caller', () => {
    definePlugin({ optionsSchema: zodSchema }, (options) => {
      expectTypeOf(options).toEqualTypeOf<{ greeting: string; sides: number }>();
      return { name: 'dice', apply() {} };
    });
    const dice = zodDice();
    expectTypeOf(dice)
      .parameter(0)
      .toEqualTypeOf<{ greeting?: string | undefined; sides?: number | undefined } | undefined>();
    // A Standard Schema may answer asynchronously: the plugin, or a promise of it (config `plugins` takes both).
    expectTypeOf(dice()).toEqualTypeOf<
      { name: string; apply(): void } | Promise<{ name: string; apply(): void }>
    >();
  });

  it('validates with zod (defaults applied) and words its issues as for JSON Schema', () => {
    const seen = vi.fn();
    const dice = zodDice(seen);
    dice({ sides: 20 });
    expect(seen).toHaveBeenLastCalledWith({ greeting: 'Hello', sides: 20 });
    expect(() => dice({ sides: 'twenty' as never })).toThrow(
      'plugin "dice": option "sides" must be number, got string "twenty"',
    );
    expect(() => dice({ greting: 'Ahoy' } as never)).toThrow(
      'plugin "dice": unknown option "greting" (did you mean "greeting"?)',
    );
    expect(() => dice({ sides: 1 })).toThrow(
      'plugin "dice": option "sides": Too small: expected number to be >=2, got integer 1',
    );
    expect(seen).toHaveBeenCalledTimes(1);
  });

  it('returns a promise of the plugin when the schema validates asynchronously; plugins resolve it', async () => {
    const checked = definePlugin(
      {
        name: 'remote',
        optionsSchema: z.object({ region: z.string().refine(async (region) => region.startsWith('eu-')) }),
      },
      (options) => ({ name: `remote-${options.region}`, apply() {} }),
    );
    const good = checked({ region: 'eu-west' });
    expect(good).toBeInstanceOf(Promise);
    expect(await resolvePlugins([good as PluginOption], ROOT)).toMatchObject([{ name: 'remote-eu-west' }]);
    // Not awaited until the plugins are resolved: no unhandled rejection meanwhile.
    const bad = checked({ region: 'us-east' }) as PluginOption;
    await new Promise((resolve) => setTimeout(resolve, 10));
    const error = await expectHubosRejection(resolvePlugins([bad], ROOT), 'PLUGIN_OPTIONS_INVALID');
    expect(error.message).toBe('plugin "remote": option "region": Invalid input, got string "us-east"');
  });
});

/** A project whose node_modules holds `hubos-plugin-dice`, declaring its options with JSON Schema. */
async function projectWithDice(config: Record<string, string>, core = "'hubos'"): Promise<string> {
  const dir = await tempDir('hubos-options-');
  await writeFiles(dir, {
    'package.json': '{ "name": "app", "private": true, "type": "module" }\n',
    'node_modules/hubos-plugin-dice/package.json': JSON.stringify({
      name: 'hubos-plugin-dice',
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
    }),
    'node_modules/hubos-plugin-dice/index.js': `import { definePlugin, defineTool } from ${core};
export default definePlugin(
  { name: 'hubos-plugin-dice', optionsSchema: ${JSON.stringify(diceSchema)} },
  (options) => ({
    name: 'hubos-plugin-dice',
    apply(kernel) {
      kernel.hooks.registerTools.tap('hubos-plugin-dice', (registry) => {
        registry.register(defineTool({
          name: 'dice_roll', description: 'Rolls a die.', inputSchema: { type: 'object', properties: {} },
          handler: () => options.greeting + ': ' + options.sides,
        }));
      });
    },
  }),
);
`,
    ...config,
  });
  return dir;
}

describe('a plugin package loaded by name', () => {
  it('resolvePlugins checks ["pkg", options] before the factory runs, naming the package', async () => {
    // The package imports another copy of hubos (as an installed package may): the check still applies.
    const core = `'${pathToFileURL(join(ROOT, 'core/index.ts')).href}'`;
    const dir = await projectWithDice({}, core);
    const [plugin] = (await resolvePlugins([['hubos-plugin-dice', { sides: 20 }]], dir)) as Plugin[];
    expect(plugin?.name).toBe('hubos-plugin-dice');
    const rejection = resolvePlugins([['hubos-plugin-dice', { greting: 'Ahoy', sides: 'twenty' }]], dir);
    const error = await rejection.catch((thrown: unknown) => thrown);
    expect(HubosError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true);
    expect((error as Error).message).toBe(
      'plugin "hubos-plugin-dice": unknown option "greting" (did you mean "greeting"?); option "sides" must be integer, got string "twenty"',
    );
  });

  it('hubos validate exits 1 with the message, by name and when a TypeScript config calls the factory', async () => {
    const byName = await projectWithDice({
      'agent.config.ts':
        "export default { plugins: [['hubos-plugin-dice', { greting: 'Ahoy', sides: 'twenty' }]] };\n",
    });
    const named = await hubos(['validate'], byName);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(
      'plugin "hubos-plugin-dice": unknown option "greting" (did you mean "greeting"?)',
    );
    expect(named.stderr).toContain('option "sides" must be integer, got string "twenty"');

    const called = await projectWithDice({
      'agent.config.ts':
        "import dice from 'hubos-plugin-dice';\nexport default { plugins: [dice({ sides: 'x' })] };\n",
    });
    const direct = await hubos(['validate'], called);
    expect(direct.code).toBe(1);
    expect(direct.stderr).toContain(
      'plugin "hubos-plugin-dice": option "sides" must be integer, got string "x"',
    );

    const good = await projectWithDice({
      'agent.config.ts': "export default { plugins: [['hubos-plugin-dice', { sides: 20 }]] };\n",
    });
    const valid = await hubos(['validate'], good);
    expect(valid.code, valid.stderr).toBe(0);
  });
});
