import { Ajv } from 'ajv';
import { describe, expect, it, vi } from 'vitest';
import { HubosError, Registry, TOOL_NAME_PATTERN, type Tool } from '../../core/index.ts';
import { expectHubosError, makeTool, toolWithout } from './helpers.ts';

const names = (registry: Registry) => registry.list().map((tool) => tool.name);

describe('Registry: register, get, has, list', () => {
  it('registers a tool and returns the same object from get()', () => {
    const registry = new Registry();
    const tool = makeTool();
    registry.register(tool);
    expect(registry.get('echo')).toBe(tool);
    expect(registry.has('echo')).toBe(true);
    expect(registry.has('other')).toBe(false);
  });

  it('lists tools in registration order, not alphabetically', () => {
    const registry = new Registry();
    for (const name of ['zeta', 'alpha', 'mid']) registry.register(makeTool({ name }));
    expect(names(registry)).toEqual(['zeta', 'alpha', 'mid']);
  });

  it('list() returns a copy: changing it does not change the registry', () => {
    const registry = new Registry();
    registry.register(makeTool());
    registry.list().pop();
    expect(names(registry)).toEqual(['echo']);
  });

  it('get() of an unknown name throws TOOL_NOT_FOUND naming it and the known tools', () => {
    const registry = new Registry();
    registry.register(makeTool({ name: 'alpha' }));
    registry.register(makeTool({ name: 'beta' }));
    const error = expectHubosError(() => registry.get('gamma'), 'TOOL_NOT_FOUND');
    expect(error.message).toContain('"gamma"');
    expect(error.message).toContain('alpha, beta');
    expect(error.details.tool).toBe('gamma');
  });

  it('get() on an empty registry says no tools are registered', () => {
    const error = expectHubosError(() => new Registry().get('x'), 'TOOL_NOT_FOUND');
    expect(error.message).toContain('no tools are registered');
  });

  it('keeps permissions and metadata as given', () => {
    const registry = new Registry();
    registry.register(makeTool({ permissions: ['fs:read', 'net:http'], metadata: { source: 'test' } }));
    expect(registry.get('echo').permissions).toEqual(['fs:read', 'net:http']);
    expect(registry.get('echo').metadata).toEqual({ source: 'test' });
  });
});

describe('Registry: tool names', () => {
  it('exports the name pattern from the design', () => {
    expect(TOOL_NAME_PATTERN.source).toBe('^[a-zA-Z0-9_-]{1,64}$');
  });

  it.each(['a', 'Z', '0', 'weather_today', 'http-get', 'A1_b-2', 'x'.repeat(64)])('accepts %j', (name) => {
    const registry = new Registry();
    registry.register(makeTool({ name }));
    expect(registry.has(name)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['with a space', 'has space'],
    ['65 characters', 'x'.repeat(65)],
    ['with a dot', 'fs.read'],
    ['with a slash', 'fs/read'],
    ['with a colon', 'fs:read'],
    ['non-ASCII', 'wetter_für_heute'],
    ['with a newline', 'a\nb'],
  ])('rejects a name %s with TOOL_INVALID', (_label, name) => {
    const registry = new Registry();
    const error = expectHubosError(() => registry.register(makeTool({ name })), 'TOOL_INVALID');
    expect(error.message).toContain(JSON.stringify(name));
    expect(error.message).toContain('name must be 1-64 letters, digits, "_" or "-"');
    expect(registry.list()).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['a number', 42],
    ['null', null],
  ])('rejects a name that is %s', (_label, name) => {
    const error = expectHubosError(() => new Registry().register(makeTool({ name })), 'TOOL_INVALID');
    expect(error.message).toContain('name must be');
  });
});

describe('Registry: malformed tools', () => {
  it.each([
    ['null', null],
    ['a string', 'echo'],
    ['a number', 1],
  ])('rejects a tool that is %s', (_label, tool) => {
    const error = expectHubosError(() => new Registry().register(tool as unknown as Tool), 'TOOL_INVALID');
    expect(error.message).toMatch(/a tool must be an object, got (null|string|number)/);
  });

  it('rejects a missing description, naming the tool and the field', () => {
    const error = expectHubosError(() => new Registry().register(toolWithout('description')), 'TOOL_INVALID');
    expect(error.message).toContain('"echo"');
    expect(error.message).toContain('description is missing');
    expect(error.details.tool).toBe('"echo"');
  });

  it.each([
    ['empty', ''],
    ['blank', '   \n'],
    ['not a string', 42],
  ])('rejects a description that is %s', (_label, description) => {
    const error = expectHubosError(() => new Registry().register(makeTool({ description })), 'TOOL_INVALID');
    expect(error.message).toContain('description');
  });

  it('rejects a missing handler, naming the tool and the field', () => {
    const error = expectHubosError(() => new Registry().register(toolWithout('handler')), 'TOOL_INVALID');
    expect(error.message).toContain('"echo"');
    expect(error.message).toContain('handler must be a function, got undefined');
  });

  it('rejects a handler that is not a function', () => {
    const error = expectHubosError(
      () => new Registry().register(makeTool({ handler: 'run' })),
      'TOOL_INVALID',
    );
    expect(error.message).toContain('handler must be a function, got string');
  });

  it('keeps idempotent: true and refuses an idempotent that is not a boolean', () => {
    const registry = new Registry();
    registry.register(makeTool({ name: 'lookup', idempotent: true }));
    expect(registry.get('lookup').idempotent).toBe(true);
    const error = expectHubosError(
      () => new Registry().register(makeTool({ idempotent: 'yes' })),
      'TOOL_INVALID',
    );
    expect(error.message).toContain('"echo"');
    expect(error.message).toContain('idempotent must be true');
    expect(error.message).toContain('got string');
  });

  it('rejects a missing inputSchema', () => {
    const error = expectHubosError(() => new Registry().register(toolWithout('inputSchema')), 'TOOL_INVALID');
    expect(error.message).toContain('"echo"');
    expect(error.message).toContain('inputSchema must be a JSON Schema object');
  });

  it.each([
    ['null', null],
    ['an array', [{ type: 'object' }]],
    ['a boolean schema', true],
  ])('rejects an inputSchema that is %s', (_label, inputSchema) => {
    const error = expectHubosError(() => new Registry().register(makeTool({ inputSchema })), 'TOOL_INVALID');
    expect(error.message).toContain('inputSchema must be a JSON Schema object');
  });

  it.each([
    ['a string schema', { type: 'string' }, '"string"'],
    ['an array schema', { type: 'array', items: { type: 'string' } }, '"array"'],
    ['a schema without type', { properties: { a: { type: 'string' } } }, 'undefined'],
    ['a union type', { type: ['object', 'null'] }, '["object","null"]'],
  ])('rejects %s: the input must be an object schema', (_label, inputSchema, shown) => {
    const error = expectHubosError(() => new Registry().register(makeTool({ inputSchema })), 'TOOL_INVALID');
    expect(error.message).toContain('inputSchema must describe an object (type: "object")');
    expect(error.message).toContain(`got type ${shown}`);
  });

  it('rejects an inputSchema that is not valid JSON Schema (a misspelt type)', () => {
    const inputSchema = { type: 'object', properties: { a: { type: 'strng' } } };
    const error = expectHubosError(() => new Registry().register(makeTool({ inputSchema })), 'TOOL_INVALID');
    expect(error.message).toContain('"echo"');
    expect(error.message).toContain('inputSchema is not a valid JSON Schema');
    expect(error.message).toContain('properties/a/type');
  });

  it('rejects an inputSchema whose "required" is not an array of strings', () => {
    const inputSchema = { type: 'object', properties: {}, required: 'a' };
    const error = expectHubosError(() => new Registry().register(makeTool({ inputSchema })), 'TOOL_INVALID');
    expect(error.message).toContain('inputSchema is not a valid JSON Schema');
  });

  it('rejects an inputSchema with a $ref that does not resolve', () => {
    const inputSchema = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    const error = expectHubosError(() => new Registry().register(makeTool({ inputSchema })), 'TOOL_INVALID');
    expect(error.message).toContain('inputSchema does not compile');
  });

  it.each([
    ['pattern', { type: 'object', properties: { id: { type: 'string', pattern: '^(?P<id>[a-z]+)$' } } }],
    ['patternProperties', { type: 'object', patternProperties: { '(?P<k>x)': { type: 'string' } } }],
  ])(
    'rejects an inputSchema whose %s is not a regular expression ajv compiles (a Python one)',
    (_label, inputSchema) => {
      // At registration, not at the first call: an MCP client falls back to an open schema on this error.
      const error = expectHubosError(
        () => new Registry().register(makeTool({ inputSchema })),
        'TOOL_INVALID',
      );
      expect(error.message).toContain('inputSchema does not compile');
    },
  );

  it('compiles a schema with a property named "pattern" when first used: it is not the keyword', () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    try {
      const registry = new Registry();
      const inputSchema = {
        type: 'object',
        properties: { pattern: { type: 'string' } },
        required: ['pattern'],
      };
      registry.register(makeTool({ inputSchema }));
      expect(compile).not.toHaveBeenCalled();
      expect(registry.checkInput('echo', { pattern: 1 }).ok).toBe(false);
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it('compiles a plain schema when first used, and checks with it from then on', () => {
    const registry = new Registry();
    registry.register(makeTool({ inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }));
    expect(registry.checkInput('echo', { n: 'x' }).ok).toBe(false);
    expect(registry.checkInput('echo', { n: 1 }).ok).toBe(true);
  });

  it('accepts a schema with local $defs and $ref', () => {
    const registry = new Registry();
    registry.register(
      makeTool({
        inputSchema: {
          type: 'object',
          $defs: { unit: { enum: ['c', 'f'] } },
          properties: { unit: { $ref: '#/$defs/unit' } },
        },
      }),
    );
    expect(registry.checkInput('echo', { unit: 'c' }).ok).toBe(true);
    expect(registry.checkInput('echo', { unit: 'k' }).ok).toBe(false);
  });

  it.each([
    ['not an array', 'fs:read'],
    ['without an action', ['fs']],
    ['with an uppercase domain', ['FS:read']],
    ['holding a number', [1]],
  ])('rejects permissions %s', (_label, permissions) => {
    const error = expectHubosError(() => new Registry().register(makeTool({ permissions })), 'TOOL_INVALID');
    expect(error.message).toContain('permissions must be an array of "<domain>:<action>" strings');
  });

  it('errors are HubosErrors that HubosError.is() recognises by code', () => {
    const error = expectHubosError(() => new Registry().register(makeTool({ name: '' })), 'TOOL_INVALID');
    expect(HubosError.is(error, 'TOOL_INVALID')).toBe(true);
    expect(HubosError.is(error, 'TOOL_DUPLICATE')).toBe(false);
    expect(error.name).toBe('HubosError');
  });
});

describe('Registry: duplicates', () => {
  it('rejects a second tool with a taken name and keeps the first', () => {
    const registry = new Registry();
    const first = makeTool();
    registry.register(first);
    const error = expectHubosError(() => registry.register(makeTool()), 'TOOL_DUPLICATE');
    expect(error.message).toContain('tool "echo" is already registered');
    expect(error.details.tool).toBe('echo');
    expect(registry.get('echo')).toBe(first);
    expect(registry.list()).toHaveLength(1);
  });

  it('names are case-sensitive: "Echo" and "echo" are different tools', () => {
    const registry = new Registry();
    registry.register(makeTool({ name: 'echo' }));
    registry.register(makeTool({ name: 'Echo' }));
    expect(names(registry)).toEqual(['echo', 'Echo']);
  });

  it('allows a name again after unregister()', () => {
    const registry = new Registry();
    registry.register(makeTool());
    expect(registry.unregister('echo')).toBe(true);
    expect(registry.has('echo')).toBe(false);
    expect(registry.unregister('echo')).toBe(false);
    const again = makeTool({ description: 'second' });
    registry.register(again);
    expect(registry.get('echo')).toBe(again);
  });
});

describe('Registry: registerBatch is all or nothing', () => {
  it('registers every tool of a good batch, in order', () => {
    const registry = new Registry();
    registry.register(makeTool({ name: 'first' }));
    registry.registerBatch([makeTool({ name: 'b' }), makeTool({ name: 'a' })]);
    expect(names(registry)).toEqual(['first', 'b', 'a']);
  });

  it('accepts an empty batch', () => {
    const registry = new Registry();
    registry.registerBatch([]);
    expect(registry.list()).toEqual([]);
  });

  it('a batch with one invalid tool registers none of them', () => {
    const registry = new Registry();
    registry.register(makeTool({ name: 'existing' }));
    const error = expectHubosError(
      () =>
        registry.registerBatch([
          makeTool({ name: 'good_one' }),
          makeTool({ name: 'bad one' }),
          makeTool({ name: 'good_two' }),
        ]),
      'TOOL_INVALID',
    );
    expect(error.message).toContain('"bad one"');
    expect(names(registry)).toEqual(['existing']);
    expect(registry.has('good_one')).toBe(false);
  });

  it('a batch whose last tool has an invalid schema registers none of them', () => {
    const registry = new Registry();
    expectHubosError(
      () =>
        registry.registerBatch([
          makeTool({ name: 'a' }),
          makeTool({ name: 'b', inputSchema: { type: 'object', properties: { x: { type: 'strng' } } } }),
        ]),
      'TOOL_INVALID',
    );
    expect(registry.list()).toEqual([]);
  });

  it('a batch that repeats a name inside itself registers none of them', () => {
    const registry = new Registry();
    const error = expectHubosError(
      () =>
        registry.registerBatch([makeTool({ name: 'a' }), makeTool({ name: 'b' }), makeTool({ name: 'a' })]),
      'TOOL_DUPLICATE',
    );
    expect(error.message).toContain('"a"');
    expect(registry.list()).toEqual([]);
  });

  it('a batch that repeats an already registered name registers none of them', () => {
    const registry = new Registry();
    registry.register(makeTool({ name: 'taken' }));
    expectHubosError(
      () => registry.registerBatch([makeTool({ name: 'fresh' }), makeTool({ name: 'taken' })]),
      'TOOL_DUPLICATE',
    );
    expect(names(registry)).toEqual(['taken']);
  });

  it('a failed batch can be retried once fixed, even when its schemas carry an $id', () => {
    const registry = new Registry();
    const schema = () => ({ $id: 'https://example.com/tools/lookup.json', type: 'object' as const });
    expectHubosError(
      () =>
        registry.registerBatch([makeTool({ name: 'lookup', inputSchema: schema() }), makeTool({ name: '' })]),
      'TOOL_INVALID',
    );
    registry.registerBatch([makeTool({ name: 'lookup', inputSchema: schema() })]);
    expect(names(registry)).toEqual(['lookup']);
  });

  it('a tool whose $id schema failed to compile can be registered once its schema is fixed', () => {
    const registry = new Registry();
    const $id = 'https://example.com/tools/refs.json';
    const broken = { $id, type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    expectHubosError(
      () => registry.register(makeTool({ name: 'refs', inputSchema: broken })),
      'TOOL_INVALID',
    );
    registry.register(makeTool({ name: 'refs', inputSchema: { $id, type: 'object' } }));
    expect(registry.has('refs')).toBe(true);
  });

  it('a tool whose schema carries an $id can be unregistered and registered again', () => {
    const registry = new Registry();
    const schema = () => ({
      $id: 'https://example.com/tools/city.json',
      type: 'object' as const,
      properties: { city: { type: 'string' as const } },
    });
    registry.register(makeTool({ name: 'city', inputSchema: schema() }));
    registry.unregister('city');
    registry.register(makeTool({ name: 'city', inputSchema: schema() }));
    expect(registry.checkInput('city', { city: 3 }).ok).toBe(false);
  });

  it('does not notify listeners of a failed batch', () => {
    const registry = new Registry();
    const listener = vi.fn();
    registry.onRegister(listener);
    expect(() => registry.registerBatch([makeTool({ name: 'a' }), makeTool({ name: 'a' })])).toThrow();
    expect(listener).not.toHaveBeenCalled();
  });
});

describe('Registry: onRegister', () => {
  it('tells listeners about each tool registered afterwards, in order, until unsubscribed', () => {
    const registry = new Registry();
    registry.register(makeTool({ name: 'before' }));
    const seen: string[] = [];
    const off = registry.onRegister((tool) => seen.push(tool.name));
    registry.register(makeTool({ name: 'one' }));
    registry.registerBatch([makeTool({ name: 'two' }), makeTool({ name: 'three' })]);
    off();
    registry.register(makeTool({ name: 'after' }));
    expect(seen).toEqual(['one', 'two', 'three']);
  });
});
