import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { resolveConfigExport } from '../../core/config.ts';
import { CORE_CONFIG_SCHEMA, type OwnedKey, validateConfig } from '../../core/config-schema.ts';
import { type ConfigEnv, defineConfig, type HubosConfig } from '../../core/index.ts';
import { expectHubosError, expectHubosRejection } from './helpers.ts';

const FILE = '/project/agent.config.ts';
const env: ConfigEnv = { mode: 'production', command: 'serve' };

const weatherKey: OwnedKey = {
  owner: 'weather',
  schema: {
    type: 'object',
    properties: {
      units: { enum: ['metric', 'imperial'], default: 'metric' },
      apiKey: { type: 'string' },
      retries: { type: 'integer', minimum: 0, default: 2 },
    },
    additionalProperties: false,
    default: {},
  },
};
const owned = new Map<string, OwnedKey>([['weather', weatherKey]]);

describe('defineConfig', () => {
  it('returns an object config unchanged', () => {
    const config = { plugins: [] };
    expect(defineConfig(config)).toBe(config);
  });

  it('returns a promise config unchanged', async () => {
    const promise = Promise.resolve({ plugins: [] });
    expect(defineConfig(promise)).toBe(promise);
  });

  it('returns a function of { mode, command } unchanged, typed', () => {
    const fn = ({ mode, command }: ConfigEnv) => ({
      plugins: mode === 'test' && command === 'run' ? [] : [],
    });
    expect(defineConfig(fn)).toBe(fn);
    defineConfig((configEnv) => {
      expectTypeOf(configEnv).toEqualTypeOf<ConfigEnv>();
      return {};
    });
  });

  it('rejects what is not a config at compile time', () => {
    // @ts-expect-error plugins must be a list
    defineConfig({ plugins: 'weather' });
    // @ts-expect-error a config function gets one { mode, command } argument
    defineConfig((a: ConfigEnv, b: string) => ({ a, b }));
  });
});

describe('resolveConfigExport', () => {
  it('takes an object as it is', async () => {
    const config = { plugins: [] };
    expect(await resolveConfigExport(config, env, FILE)).toBe(config);
  });

  it('awaits a promise', async () => {
    expect(await resolveConfigExport(Promise.resolve({ plugins: [] }), env, FILE)).toEqual({ plugins: [] });
  });

  it('calls a function once with { mode, command }', async () => {
    const fn = vi.fn((e: ConfigEnv): HubosConfig => ({ [e.mode]: e.command }) as HubosConfig);
    expect(await resolveConfigExport(fn, env, FILE)).toEqual({ production: 'serve' });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith({ mode: 'production', command: 'serve' });
  });

  it('awaits an async function', async () => {
    const fn = async ({ mode }: ConfigEnv) => ({ mode }) as HubosConfig;
    expect(await resolveConfigExport(fn, { mode: 'test', command: 'run' }, FILE)).toEqual({ mode: 'test' });
  });

  it.each([
    ['null', null, 'got null'],
    ['an array', [{ name: 'p' }], 'got an array'],
    ['a string', 'config', 'got string "config"'],
    ['a number', 3, 'got integer 3'],
  ])('rejects %s with CONFIG_INVALID naming the file', async (_label, value, got) => {
    const error = await expectHubosRejection(resolveConfigExport(value, env, FILE), 'CONFIG_INVALID');
    expect(error.message).toBe(
      `${FILE} must export an object (export default defineConfig({ ... })), ${got}`,
    );
    expect(error.details.file).toBe(FILE);
  });

  it('rejects a function that returns nothing', async () => {
    const error = await expectHubosRejection(
      resolveConfigExport(() => undefined, env, FILE),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain('got nothing');
  });

  it('says "the config" when there is no file', async () => {
    const error = await expectHubosRejection(resolveConfigExport(null, env, undefined), 'CONFIG_INVALID');
    expect(error.message).toMatch(/^the config must export an object/);
  });
});

describe('validateConfig: core keys', () => {
  it('the kernel owns plugins, agents, model, store, bus, sessions, runs, workspace, permissions, telemetry, pricing, guardrails, evals, context, modelLimits and rateLimits', () => {
    expect(Object.keys(CORE_CONFIG_SCHEMA)).toEqual([
      'plugins',
      'agents',
      'model',
      'store',
      'bus',
      'sessions',
      'runs',
      'workspace',
      'permissions',
      'telemetry',
      'pricing',
      'guardrails',
      'evals',
      'context',
      'modelLimits',
      'rateLimits',
    ]);
    expect(CORE_CONFIG_SCHEMA.plugins).toMatchObject({ type: 'array' });
  });

  it('takes evals.judge as a model reference, and rejects anything else under evals', () => {
    expect(validateConfig({ evals: { judge: 'openai:gpt-4.1' } }, new Map(), FILE).evals).toEqual({
      judge: 'openai:gpt-4.1',
    });
    const empty = expectHubosError(
      () => validateConfig({ evals: { judge: '' } }, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(empty.message).toContain('"evals.judge"');
    const unknown = expectHubosError(
      () => validateConfig({ evals: { judges: 'x' } } as never, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(unknown.message).toContain('judges');
  });

  it('accepts an empty config and returns a copy', () => {
    const config = {};
    const validated = validateConfig(config, new Map(), FILE);
    expect(validated).toEqual({});
    expect(validated).not.toBe(config);
  });

  it('takes runs.eventsTtlMs between a second and a day, and rejects others with CONFIG_INVALID', () => {
    expect(validateConfig({ runs: { eventsTtlMs: 600_000 } }, new Map(), FILE).runs?.eventsTtlMs).toBe(
      600_000,
    );
    for (const eventsTtlMs of [0, 999, 86_400_001, 1.5, '60000'])
      expectHubosError(
        () => validateConfig({ runs: { eventsTtlMs } } as never, new Map(), FILE),
        'CONFIG_INVALID',
      );
  });

  it("takes runs.durability 'sync' or 'exit', and refuses another value naming the key and both", () => {
    expect(validateConfig({ runs: { durability: 'exit' } }, new Map(), FILE).runs?.durability).toBe('exit');
    expect(validateConfig({ runs: { durability: 'sync' } }, new Map(), FILE).runs?.durability).toBe('sync');
    for (const durability of ['async', 'EXIT', true, 1]) {
      const error = expectHubosError(
        () => validateConfig({ runs: { durability } } as never, new Map(), FILE),
        'CONFIG_INVALID',
      );
      expect(error.message).toContain('"runs.durability" must be one of "sync", "exit"');
      expect(error.message).toContain(FILE);
    }
  });

  it('takes pricing by model id, and refuses a price that is missing, negative or not a number, naming it', () => {
    const pricing = {
      'my-model': { input: 1, output: 2 },
      'gpt-4.1': { input: 1.5, output: 6, cachedInput: 0.4 },
    };
    expect(validateConfig({ pricing }, new Map(), FILE).pricing).toEqual(pricing);
    for (const [price, says] of [
      [{ input: 1 }, 'output'],
      [{ input: -1, output: 2 }, 'pricing.m.input'],
      [{ input: '1', output: 2 }, 'pricing.m.input'],
      [{ input: 1, output: 2, cached: 1 }, 'cached'],
    ] as const) {
      const error = expectHubosError(
        () => validateConfig({ pricing: { m: price } } as never, new Map(), FILE),
        'CONFIG_INVALID',
      );
      expect(error.message).toContain(says);
      expect(error.message).toContain(FILE);
    }
  });

  it('keeps plugin objects (and their functions) as they are', () => {
    const plugin = { name: 'p', apply() {} };
    const validated = validateConfig({ plugins: [plugin, false, ['./x.ts', { a: 1 }]] }, new Map(), FILE);
    expect(validated.plugins?.[0]).toBe(plugin);
    expect(validated.plugins).toEqual([plugin, false, ['./x.ts', { a: 1 }]]);
  });

  it('rejects "plugins" that is not an array, naming the key, the expected type, the given value and the file', () => {
    const error = expectHubosError(
      () => validateConfig({ plugins: 'weather' } as never, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(error.message).toBe(
      `invalid config in ${FILE}:\n  - "plugins" must be array, got string "weather"`,
    );
    expect(error.details).toEqual({
      file: FILE,
      problems: ['"plugins" must be array, got string "weather"'],
    });
  });

  it('rejects an unknown key, suggesting the closest known key', () => {
    const error = expectHubosError(
      () => validateConfig({ plugin: [] } as never, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain(
      'unknown key "plugin" (did you mean "plugins"?); known keys: plugins, agents, model, store, bus, sessions, runs, workspace, permissions, telemetry',
    );
    expect(error.message).toContain(FILE);
  });

  it('suggests regardless of case', () => {
    const error = expectHubosError(
      () => validateConfig({ Plugins: [] } as never, new Map(), FILE),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain('did you mean "plugins"?');
  });

  it('does not suggest a key that is not close, but lists the known keys', () => {
    const error = expectHubosError(
      () => validateConfig({ metrics: true } as never, owned, FILE),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain(
      'unknown key "metrics"; known keys: plugins, agents, model, store, bus, sessions, runs, workspace, permissions, telemetry, pricing, guardrails, evals, context, modelLimits, rateLimits, weather',
    );
    expect(error.message).not.toContain('did you mean');
  });

  it('says "the inline config" when there is no file', () => {
    const error = expectHubosError(
      () => validateConfig({ x: 1 } as never, new Map(), undefined),
      'CONFIG_INVALID',
    );
    expect(error.message).toMatch(/^invalid config in the inline config:/);
  });

  it('lists every problem, one per line', () => {
    const error = expectHubosError(
      () => validateConfig({ plugins: {}, wether: {}, weather: { retries: -1 } } as never, owned, FILE),
      'CONFIG_INVALID',
    );
    const problems = error.details.problems as string[];
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(
      expect.arrayContaining([
        '"plugins" must be array, got an object',
        '"weather.retries" must be >= 0, got integer -1',
        'unknown key "wether" (did you mean "weather"?); known keys: plugins, agents, model, store, bus, sessions, runs, workspace, permissions, telemetry, pricing, guardrails, evals, context, modelLimits, rateLimits, weather',
      ]),
    );
    expect(error.message.split('\n')).toHaveLength(4);
  });
});

describe('validateConfig: keys owned by plugins', () => {
  it('accepts a plugin-owned key that matches its schema', () => {
    expect(validateConfig({ weather: { units: 'imperial', apiKey: 'k', retries: 0 } }, owned, FILE)).toEqual({
      weather: { units: 'imperial', apiKey: 'k', retries: 0 },
    });
  });

  it('rejects a plugin-owned key when no plugin declares it', () => {
    expectHubosError(() => validateConfig({ weather: {} }, new Map(), FILE), 'CONFIG_INVALID');
  });

  it('applies schema defaults, including to an absent key, in the copy only', () => {
    const config = { weather: { apiKey: 'k' } };
    expect(validateConfig(config, owned, FILE)).toEqual({
      weather: { units: 'metric', apiKey: 'k', retries: 2 },
    });
    expect(config).toEqual({ weather: { apiKey: 'k' } });

    const empty = {};
    expect(validateConfig(empty, owned, FILE)).toEqual({ weather: { units: 'metric', retries: 2 } });
    expect(empty).toEqual({});
  });

  it('names the nested key path, what was expected and what was given', () => {
    const error = expectHubosError(
      () => validateConfig({ weather: { units: 'kelvin', retries: '2' } }, owned, FILE),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain(
      '"weather.units" must be one of "metric", "imperial", got string "kelvin"',
    );
    expect(error.message).toContain('"weather.retries" must be integer, got string "2"');
    expect(error.message).toContain(FILE);
  });

  it('names an unknown nested key and lists the allowed ones', () => {
    const error = expectHubosError(
      () => validateConfig({ weather: { unit: 'metric' } }, owned, FILE),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain('unknown property "weather.unit" (allowed: units, apiKey, retries)');
  });

  it('names the key when a plugin-owned key has the wrong type altogether', () => {
    const error = expectHubosError(
      () => validateConfig({ weather: 'metric' }, owned, FILE),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain('"weather" must be object, got string "metric"');
  });

  it('does not change a config that fails', () => {
    const config = { weather: { units: 'kelvin' } };
    expect(() => validateConfig(config, owned, FILE)).toThrow();
    expect(config).toEqual({ weather: { units: 'kelvin' } });
  });
});
