import { describe, expect, it } from 'vitest';
import { type InputCheck, type JSONSchemaObject, Registry } from '../../core/index.ts';
import { makeTool } from './helpers.ts';

function registryWith(inputSchema: JSONSchemaObject, name = 'forecast'): Registry {
  const registry = new Registry();
  registry.register(makeTool({ name, inputSchema }));
  return registry;
}

function failure(check: InputCheck): string {
  if (check.ok) throw new Error(`expected invalid input, got ${JSON.stringify(check.input)}`);
  return check.message;
}

function success(check: InputCheck): Record<string, unknown> {
  if (!check.ok) throw new Error(`expected valid input: ${check.message}`);
  return check.input;
}

const forecast: JSONSchemaObject = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { type: 'integer', minimum: 1, maximum: 14, default: 3 },
    units: { enum: ['metric', 'imperial'], default: 'metric' },
    detailed: { type: 'boolean', default: false },
  },
  required: ['city'],
  additionalProperties: false,
};

describe('tool input: types are never coerced', () => {
  it('rejects a string "3" for an integer, naming the field, the expected type and the given value', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { city: 'Oslo', days: '3' }));
    expect(message).toContain('"days" must be integer, got string "3"');
    expect(message).toContain('tool "forecast"');
  });

  it('keeps JSON numbers as numbers', () => {
    const input = success(
      registryWith(forecast).checkInput('forecast', JSON.parse('{"city":"Oslo","days":7}')),
    );
    expect(input.days).toBe(7);
    expect(typeof input.days).toBe('number');
  });

  it('rejects a fractional number for an integer', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { city: 'Oslo', days: 2.5 }));
    expect(message).toContain('"days" must be integer, got number 2.5');
  });

  it('rejects a number for a string instead of turning it into "42"', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { city: 42 }));
    expect(message).toContain('"city" must be string, got integer 42');
  });

  it('rejects the string "true" for a boolean', () => {
    const message = failure(
      registryWith(forecast).checkInput('forecast', { city: 'Oslo', detailed: 'true' }),
    );
    expect(message).toContain('"detailed" must be boolean, got string "true"');
  });

  it('rejects null for a string and says it got null', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { city: null }));
    expect(message).toContain('"city" must be string, got null');
  });

  it('rejects an array where a string belongs', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { city: ['Oslo'] }));
    expect(message).toContain('"city" must be string, got an array');
  });
});

describe('tool input: messages a model can act on', () => {
  it('names a missing required field', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', {}));
    expect(message).toContain('missing required property "city"');
  });

  it('names a nested missing field by its path', () => {
    const registry = registryWith({
      type: 'object',
      properties: {
        options: { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] },
      },
    });
    const message = failure(registry.checkInput('forecast', { options: {} }));
    expect(message).toContain('missing required property "options.mode"');
  });

  it('names an unknown field and lists the allowed ones', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { city: 'Oslo', dayz: 3 }));
    expect(message).toContain('unknown property "dayz" (allowed: city, days, units, detailed)');
  });

  it('lists the allowed values of an enum and the value given', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { city: 'Oslo', units: 'kelvin' }));
    expect(message).toContain('"units" must be one of "metric", "imperial", got string "kelvin"');
  });

  it('names a bound that was broken, with the value given', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { city: 'Oslo', days: 30 }));
    expect(message).toContain('"days" must be <= 14, got integer 30');
  });

  it('names an array item by its index', () => {
    const registry = registryWith({
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' } } },
    });
    const message = failure(registry.checkInput('forecast', { tags: ['a', 2] }));
    expect(message).toContain('"tags[1]" must be string, got integer 2');
  });

  it('checks string formats', () => {
    const registry = registryWith({ type: 'object', properties: { url: { type: 'string', format: 'uri' } } });
    expect(success(registry.checkInput('forecast', { url: 'https://example.com/a' })).url).toBe(
      'https://example.com/a',
    );
    expect(failure(registry.checkInput('forecast', { url: 'not a url' }))).toContain(
      '"url" must match format "uri"',
    );
  });

  it('reports every problem at once, not only the first', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', { days: '3', units: 'kelvin' }));
    expect(message).toContain('missing required property "city"');
    expect(message).toContain('"days" must be integer');
    expect(message).toContain('"units" must be one of');
  });

  it('tells the model to fix the arguments and call the tool again', () => {
    const message = failure(registryWith(forecast).checkInput('forecast', {}));
    expect(message).toMatch(
      /^invalid input for tool "forecast": .*Fix the arguments and call "forecast" again\.$/,
    );
  });

  it('shortens a long given value instead of echoing all of it', () => {
    const long = 'x'.repeat(5000);
    const message = failure(registryWith(forecast).checkInput('forecast', { city: 'Oslo', days: long }));
    expect(message).toContain(`got string "${'x'.repeat(40)}…"`);
    expect(message.length).toBeLessThan(300);
  });

  it.each([
    ['a string', 'Oslo', 'got string "Oslo"'],
    ['an array', ['Oslo'], 'got an array'],
    ['null', null, 'got null'],
    ['a number', 3, 'got integer 3'],
  ])('rejects an input that is %s, not an object', (_label, input, given) => {
    const message = failure(registryWith(forecast).checkInput('forecast', input));
    expect(message).toContain(`the input must be object, ${given}`);
  });

  it('says which tool is unknown', () => {
    const message = failure(registryWith(forecast).checkInput('forcast', { city: 'Oslo' }));
    expect(message).toContain('no tool named "forcast"');
    expect(message).toContain('known tools: forecast');
  });

  it('rejects input that is not JSON data (a function) instead of throwing', () => {
    const registry = registryWith({ type: 'object' });
    let check: InputCheck | undefined;
    expect(() => {
      check = registry.checkInput('forecast', { callback: () => 1 });
    }).not.toThrow();
    expect(failure(check!)).toContain('tool "forecast"');
  });
});

describe('tool input: defaults', () => {
  it('applies schema defaults to absent fields', () => {
    const input = success(registryWith(forecast).checkInput('forecast', { city: 'Oslo' }));
    expect(input).toEqual({ city: 'Oslo', days: 3, units: 'metric', detailed: false });
  });

  it('never overwrites a given value with a default, even a falsy one', () => {
    const registry = registryWith({
      type: 'object',
      properties: {
        count: { type: 'integer', default: 5 },
        label: { type: 'string', default: 'x' },
        on: { type: 'boolean', default: true },
      },
    });
    expect(success(registry.checkInput('forecast', { count: 0, label: '', on: false }))).toEqual({
      count: 0,
      label: '',
      on: false,
    });
  });

  it('treats a missing input as an empty object, so defaults still apply', () => {
    const registry = registryWith({
      type: 'object',
      properties: { limit: { type: 'integer', default: 10 } },
    });
    expect(success(registry.checkInput('forecast', undefined))).toEqual({ limit: 10 });
  });

  it('applies defaults inside nested objects', () => {
    const registry = registryWith({
      type: 'object',
      properties: {
        options: {
          type: 'object',
          properties: { depth: { type: 'integer', default: 2 } },
          default: {},
        },
      },
    });
    expect(success(registry.checkInput('forecast', {}))).toEqual({ options: { depth: 2 } });
    expect(success(registry.checkInput('forecast', { options: { depth: 5 } }))).toEqual({
      options: { depth: 5 },
    });
  });

  it('gives back a copy and leaves the caller input untouched', () => {
    const given = { city: 'Oslo', nested: { a: 1 } };
    const before = structuredClone(given);
    const registry = registryWith({
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer', default: 3 },
        nested: { type: 'object', properties: { b: { type: 'integer', default: 2 } } },
      },
    });
    const input = success(registry.checkInput('forecast', given));
    expect(input).toEqual({ city: 'Oslo', days: 3, nested: { a: 1, b: 2 } });
    expect(input).not.toBe(given);
    expect(given).toEqual(before);
  });

  it('does not share default objects between calls', () => {
    const registry = registryWith({
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' }, default: [] } },
    });
    const first = success(registry.checkInput('forecast', {}));
    (first.tags as string[]).push('changed');
    expect(success(registry.checkInput('forecast', {})).tags).toEqual([]);
  });
});
