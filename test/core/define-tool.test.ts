import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createSandbox,
  defineTool,
  executeTool,
  type InputOf,
  MemoryStore,
  Registry,
  type Tool,
} from '../../core/index.ts';
import { expectHubosError } from './helpers.ts';

const env = () => ({
  signal: new AbortController().signal,
  agentId: 'a',
  sandbox: createSandbox('/tmp/ws'),
  store: new MemoryStore(),
});

describe('defineTool', () => {
  it('returns the tool it was given, unchanged', () => {
    const spec = {
      name: 'ping',
      description: 'Answers pong.',
      inputSchema: { type: 'object' },
      handler: () => 'pong',
      permissions: ['net:http'],
      metadata: { group: 'net' },
    } as const;
    const tool = defineTool(spec);
    expect(tool).toBe(spec);
    expect(tool).toEqual(spec);
  });

  it('types the handler input from the schema: required and defaulted fields are present', async () => {
    const tool = defineTool({
      name: 'weather',
      description: 'Tells the weather for a city.',
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          days: { type: 'integer', default: 3 },
          units: { enum: ['metric', 'imperial'] },
        },
        required: ['city'],
        additionalProperties: false,
      },
      handler: (ctx, tc) => {
        // `days` has a default, which is applied before the handler runs: it is always there.
        expectTypeOf(tc.input).toEqualTypeOf<{ city: string; days: number; units?: 'metric' | 'imperial' }>();
        expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
        return { city: tc.input.city.toUpperCase(), days: tc.input.days };
      },
    });
    expectTypeOf(tool).toExtend<Tool>();
    expectTypeOf(tool).toEqualTypeOf<
      Tool<{ city: string; days: number; units?: 'metric' | 'imperial' }, { city: string; days: number }>
    >();

    const registry = new Registry();
    registry.register(tool);
    expect(await executeTool(registry, 'weather', { city: 'oslo' }, env())).toEqual({
      ok: true,
      output: { city: 'OSLO', days: 3 },
    });
  });

  it('falls back to a record for schemas it cannot narrow', () => {
    expectTypeOf<InputOf<{ type: 'object' }>>().toEqualTypeOf<{ [x: string]: unknown }>();
    expectTypeOf<InputOf<'not a schema'>>().toEqualTypeOf<Record<string, unknown>>();
  });

  it('requires a name, description, inputSchema and handler at compile time', () => {
    // @ts-expect-error description is required
    const noDescription = defineTool({ name: 'x', inputSchema: { type: 'object' }, handler: () => 1 });
    // @ts-expect-error inputSchema is required
    const noSchema = defineTool({ name: 'x', description: 'd', handler: () => 1 });
    // ...and the registry still refuses them at run time, where types are gone.
    expectHubosError(() => new Registry().register(noDescription), 'TOOL_INVALID');
    expectHubosError(() => new Registry().register(noSchema), 'TOOL_INVALID');
  });

  it('does not validate by itself: registering is what checks the tool', () => {
    const tool = defineTool({
      name: 'bad name',
      description: 'd',
      inputSchema: { type: 'object' },
      handler: () => 1,
    });
    expect(tool.name).toBe('bad name');
    const error = expectHubosError(() => new Registry().register(tool), 'TOOL_INVALID');
    expect(error.message).toContain('"bad name"');
  });
});
