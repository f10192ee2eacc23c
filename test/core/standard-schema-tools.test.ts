import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  type InputOf,
  type Kernel,
  Registry,
  type StandardSchemaV1,
  type Tool,
  type ToolOutput,
  type ToolSpec,
  toolOutput,
} from '../../core/index.ts';
import hubos from '../../plugins/hubos/index.ts';
import mcp from '../../plugins/mcp/index.ts';
import { bootKernel, invokeTool } from '../../testing/index.ts';
import { bootAgent, toolsPlugin } from '../agent/helpers.ts';
import { connect } from '../plugins/mcp/server-helpers.ts';
import { expectHubosError } from './helpers.ts';

const kernels: Kernel[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

const weatherInput = z.object({
  city: z.string().min(1).describe('City name'),
  days: z.number().int().min(1).max(7).default(1),
  units: z.enum(['metric', 'imperial']).optional(),
});

const weather = (
  handler = vi.fn((_ctx: unknown, tc: { input: z.output<typeof weatherInput> }) => tc.input),
) =>
  defineTool({
    name: 'weather',
    description: 'The forecast for a city.',
    inputSchema: weatherInput,
    outputSchema: z.object({ forecast: z.string() }),
    handler: (ctx, tc) => {
      handler(ctx, tc);
      return { forecast: `${tc.input.city}: sunny for ${tc.input.days} days` };
    },
  });

/** A Standard Schema written by hand: `{ n: number }`, even numbers only, with or without a JSON Schema. */
function evenNumber(
  options: { jsonSchema?: boolean; async?: boolean } = {},
): StandardSchemaV1<{ n: number }> {
  const validate = (value: unknown): StandardSchemaV1.Result<{ n: number }> => {
    const n = (value as { n?: unknown } | null)?.n;
    if (typeof n !== 'number') return { issues: [{ message: 'Expected a number', path: ['n'] }] };
    if (n % 2 !== 0) return { issues: [{ message: 'Must be even', path: [{ key: 'n' }] }] };
    return { value: { n } };
  };
  const json = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
  return {
    '~standard': {
      version: 1,
      vendor: 'hand-made',
      validate: options.async ? async (value) => validate(value) : validate,
      ...(options.jsonSchema ? { jsonSchema: { input: () => json, output: () => json } } : {}),
    },
  } as StandardSchemaV1<{ n: number }>;
}

describe('defineTool with a Standard Schema (zod 4)', () => {
  it('gives a Tool whose schemas are the JSON Schema derived from zod, keeping zod to validate', () => {
    const tool = weather();
    expect(tool.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1, description: 'City name' },
        days: { type: 'integer', minimum: 1, maximum: 7, default: 1 },
        units: { type: 'string', enum: ['metric', 'imperial'] },
      },
      required: ['city'],
    });
    // What the client receives: the output of the schema (every field there).
    expect(tool.outputSchema).toMatchObject({
      type: 'object',
      properties: { forecast: { type: 'string' } },
      required: ['forecast'],
    });
    expect(tool.standardSchemas?.input).toBe(weatherInput);
    // Plain JSON: nothing of zod's (its JSON Schema carries a `~standard` of its own) reaches a model.
    expect(JSON.parse(JSON.stringify(tool.inputSchema))).toEqual(tool.inputSchema);
    expect(Object.keys(tool.inputSchema)).not.toContain('~standard');
    expect(tool.standardSchemas?.output?.['~standard'].vendor).toBe('zod');
  });

  it('types tc.input as the schema output (defaults present) and checks the result against the output schema', () => {
    const tool = defineTool({
      name: 'typed',
      description: 'Types.',
      inputSchema: weatherInput,
      outputSchema: z.object({ forecast: z.string() }),
      handler: (_ctx, { input }) => {
        expectTypeOf(input).toEqualTypeOf<{
          city: string;
          days: number;
          units?: 'metric' | 'imperial' | undefined;
        }>();
        return { forecast: input.city };
      },
    });
    expectTypeOf(tool).toExtend<Tool>();
    expectTypeOf(tool).toEqualTypeOf<
      Tool<
        { city: string; days: number; units?: 'metric' | 'imperial' | undefined },
        { forecast: string } | ToolOutput
      >
    >();
    expectTypeOf<InputOf<typeof weatherInput>>().toEqualTypeOf<z.output<typeof weatherInput>>();
    defineTool({
      name: 'wrong',
      description: 'Returns what its outputSchema does not allow.',
      inputSchema: z.object({}),
      outputSchema: z.object({ forecast: z.string() }),
      // @ts-expect-error forecast must be a string
      handler: () => ({ forecast: 1 }),
    });
    // Without an outputSchema the result type is the handler's, as for JSON Schema tools.
    const free = defineTool({ name: 'free', description: 'd', inputSchema: z.object({}), handler: () => 42 });
    expectTypeOf(free).toEqualTypeOf<Tool<Record<string, never>, number>>();
  });

  it('validates with zod: defaults and transforms reach the handler, the caller keeps its object', async () => {
    const seen = vi.fn();
    const tool = defineTool({
      name: 'shout',
      description: 'Shouts.',
      inputSchema: z.object({
        text: z.string().transform((text) => text.toUpperCase()),
        times: z.number().int().default(2),
      }),
      handler: (_ctx, { input }) => {
        expectTypeOf(input).toEqualTypeOf<{ text: string; times: number }>();
        seen(input);
        return input.text.repeat(input.times);
      },
    });
    const given = { text: 'hey' };
    expect(await invokeTool(tool, given)).toEqual({ ok: true, output: 'HEYHEY' });
    expect(seen).toHaveBeenCalledWith({ text: 'HEY', times: 2 });
    expect(given).toEqual({ text: 'hey' });
  });

  it('turns zod issues into the model-readable message JSON Schema tools give, and never runs the handler', async () => {
    const handler = vi.fn();
    const tool = weather(handler);
    const result = await invokeTool(tool, { days: '3', units: 'kelvin' });
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'TOOL_INPUT_INVALID',
        message:
          'invalid input for tool "weather": missing required property "city"; "days" must be number, got string "3"; ' +
          '"units" must be one of "metric", "imperial", got string "kelvin". Fix the arguments and call "weather" again.',
      },
    });
    const bounds = await invokeTool(tool, { city: '', days: 2.5 });
    expect(!bounds.ok && bounds.error.message).toContain(
      '"city": Too small: expected string to have >=1 characters, got string ""',
    );
    expect(!bounds.ok && bounds.error.message).toContain('"days" must be integer, got number 2.5');
    expect(handler).not.toHaveBeenCalled();
  });

  it('names unknown properties of a strict object and lists the allowed ones', async () => {
    const tool = defineTool({
      name: 'strict',
      description: 'Strict.',
      inputSchema: z.strictObject({ city: z.string(), days: z.number().optional() }),
      handler: () => 'ok',
    });
    expect(tool.inputSchema.additionalProperties).toBe(false);
    const result = await invokeTool(tool, { city: 'Oslo', dayz: 3 });
    expect(!result.ok && result.error.message).toContain('unknown property "dayz" (allowed: city, days)');
  });

  it('names nested and array paths as JSON Schema messages do', async () => {
    const tool = defineTool({
      name: 'nested',
      description: 'Nested.',
      inputSchema: z.object({ trip: z.object({ stops: z.array(z.string()) }) }),
      handler: () => 'ok',
    });
    const result = await invokeTool(tool, { trip: { stops: ['Oslo', 2] } });
    expect(!result.ok && result.error.message).toContain('"trip.stops[1]" must be string, got integer 2');
  });

  it('checks structured results against a zod outputSchema, and passes on zod’s output', async () => {
    const out = z.object({ forecast: z.string(), source: z.string().default('hubos') });
    const tool = (result: unknown) =>
      defineTool({
        name: 'forecast',
        description: 'Forecast.',
        inputSchema: z.object({}),
        outputSchema: out,
        handler: () => result as never,
      });
    expect(await invokeTool(tool({ forecast: 'sun', extra: 1 }), {})).toEqual({
      ok: true,
      output: { forecast: 'sun', source: 'hubos' },
    });
    expect(await invokeTool(tool({ forecast: 1 }), {})).toEqual({
      ok: false,
      error: {
        code: 'TOOL_FAILED',
        message:
          'the result of tool "forecast" does not match its outputSchema: "forecast" must be string, got integer 1',
      },
    });
    const rich = await invokeTool(
      tool(toolOutput({ content: [{ type: 'text', text: 'sun' }], structuredContent: { forecast: 'sun' } })),
      {},
    );
    expect(rich).toEqual({
      ok: true,
      output: { forecast: 'sun', source: 'hubos' },
      content: [{ type: 'text', text: 'sun' }],
    });
    const none = await invokeTool(tool('just text'), {});
    expect(!none.ok && none.error.message).toContain('does not match its outputSchema');
  });

  it('registers a plain object with a zod schema (no defineTool) the same way', async () => {
    const registry = new Registry();
    const spec: ToolSpec = {
      name: 'plain',
      description: 'Plain.',
      inputSchema: z.object({ n: z.number().default(1) }),
      handler: (_ctx, { input }) => input,
    };
    registry.register(spec);
    const tool = registry.get('plain');
    expect(tool).not.toBe(spec);
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      properties: { n: { type: 'number', default: 1 } },
    });
    expect(registry.checkInput('plain', {})).toEqual({ ok: true, input: { n: 1 } });
    expect(registry.checkInput('plain', { n: 'x' })).toMatchObject({ ok: false });
    // Registering the registry's own tool again is the same tool, not a second derivation.
    const again = new Registry();
    again.register(tool);
    expect(again.get('plain')).toBe(tool);
  });

  it('awaits a Standard Schema that validates asynchronously; checkInput looks at the derived JSON Schema meanwhile', async () => {
    const handler = vi.fn((_ctx: unknown, tc: { input: { n: number } }) => tc.input.n);
    const tool = defineTool({
      name: 'even',
      description: 'Even numbers only.',
      inputSchema: evenNumber({ jsonSchema: true, async: true }),
      handler,
    });
    expect(await invokeTool(tool, { n: 4 })).toEqual({ ok: true, output: 4 });
    const odd = await invokeTool(tool, { n: 3 });
    expect(odd).toEqual({
      ok: false,
      error: {
        code: 'TOOL_INPUT_INVALID',
        message:
          'invalid input for tool "even": "n": Must be even, got integer 3. Fix the arguments and call "even" again.',
      },
    });
    expect(handler).toHaveBeenCalledTimes(1);
    const registry = new Registry();
    registry.register(tool);
    // At once, only what the JSON Schema says: a string is refused, an odd number is not (yet).
    expect(registry.checkInput('even', { n: 'x' })).toMatchObject({ ok: false });
    expect(registry.checkInput('even', { n: 3 })).toEqual({ ok: true, input: { n: 3 } });
    expect(await registry.validateInput('even', { n: 3 })).toMatchObject({ ok: false });
  });

  it('asks for 2020-12 JSON Schema, and takes draft-07 from a library that gives only that', () => {
    const handMade = defineTool({
      name: 'even',
      description: 'd',
      inputSchema: evenNumber({ jsonSchema: true }),
      handler: () => 1,
    });
    expect(handMade.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const json = { type: 'object', properties: { n: { type: 'number' } } };
    const draft07Only = {
      '~standard': {
        ...evenNumber()['~standard'],
        jsonSchema: {
          input: ({ target }: { target: string }) => {
            if (target !== 'draft-07') throw new Error(`unsupported target ${target}`);
            return json;
          },
          output: () => json,
        },
      },
    } as StandardSchemaV1<{ n: number }>;
    const older = defineTool({ name: 'older', description: 'd', inputSchema: draft07Only, handler: () => 1 });
    expect(older.inputSchema).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', ...json });
    const registry = new Registry();
    registry.register(older);
    expect(registry.checkInput('older', { n: 3 })).toMatchObject({ ok: false });
    expect(registry.checkInput('older', { n: 4 })).toEqual({ ok: true, input: { n: 4 } });
  });

  it('refuses, naming the tool and the fix, a Standard Schema that cannot give its JSON Schema', () => {
    const error = expectHubosError(
      () =>
        defineTool({
          name: 'opaque',
          description: 'No JSON Schema.',
          inputSchema: evenNumber(),
          handler: () => 'ok',
        }),
      'TOOL_INVALID',
    );
    expect(error.message).toContain('tool "opaque": no JSON Schema can be derived from its inputSchema');
    expect(error.message).toContain('"hand-made" without the Standard JSON Schema interface');
    expect(error.message).toContain('upgrade the library');
    expect(error.message).toContain('or write the schema as JSON Schema');
    // A plain object registered as it is gets the same answer.
    const registry = new Registry();
    const plain = { name: 'opaque', description: 'd', inputSchema: evenNumber(), handler: () => 'ok' };
    expect(expectHubosError(() => registry.register(plain), 'TOOL_INVALID').message).toContain(
      'tool "opaque"',
    );
    expect(registry.has('opaque')).toBe(false);
  });

  it('refuses what zod cannot express as JSON Schema, and a schema that is not of an object', () => {
    const date = expectHubosError(
      () =>
        defineTool({
          name: 'when',
          description: 'd',
          inputSchema: z.object({ at: z.date() }),
          handler: () => 1,
        }),
      'TOOL_INVALID',
    );
    expect(date.message).toContain(
      'zod cannot express it as JSON Schema (Date cannot be represented in JSON Schema)',
    );
    const transformed = expectHubosError(
      () =>
        defineTool({
          name: 'out',
          description: 'd',
          inputSchema: z.object({}),
          outputSchema: z.object({ n: z.string().transform((s) => s.length) }),
          handler: () => ({ n: 'abc' }),
        }),
      'TOOL_INVALID',
    );
    expect(transformed.message).toContain('no JSON Schema can be derived from its outputSchema');
    const scalar = expectHubosError(
      () =>
        new Registry().register({ name: 's', description: 'd', inputSchema: z.string(), handler: () => 1 }),
      'TOOL_INVALID',
    );
    expect(scalar.message).toContain(
      'inputSchema must describe an object (type: "object"), got type "string"',
    );
    expect(scalar.message).toContain('z.object(');
  });
});

describe('a zod tool in a booted kernel', () => {
  it('an agent’s model sees the derived JSON Schema; a bad call gets the readable error, a good one the result', async () => {
    const handler = vi.fn();
    const { kernel, agent, model } = await bootAgent({
      tools: [weather(handler)],
      script: [
        { toolCalls: [{ name: 'weather', id: 'c1', input: { city: '', days: 9 } }] },
        { toolCalls: [{ name: 'weather', id: 'c2', input: { city: 'Oslo' } }] },
        'Sunny.',
      ],
    });
    kernels.push(kernel);
    const result = await agent.run('weather in Oslo?');
    const definition = model.requests[0]!.tools?.find((tool) => tool.name === 'weather');
    expect(definition?.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' } },
      required: ['city'],
    });
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    const firstReply = model.requests[1]!.messages.at(-1);
    expect(firstReply?.content).toContain('"days": Too big: expected number to be <=7, got integer 9');
    expect(firstReply?.content).toContain('Fix the arguments and call "weather" again.');
    expect(result.toolCalls[1]).toMatchObject({ ok: true, output: { forecast: 'Oslo: sunny for 1 days' } });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0]![1].input).toEqual({ city: 'Oslo', days: 1 });
    expect(result.text).toBe('Sunny.');
  });

  it('an MCP client’s tools/list shows the derived input and output schemas', async () => {
    const kernel = await bootKernel({
      plugins: [toolsPlugin([weather()]), mcp(), hubos({ port: 0, rateLimit: false })],
      config: { mcp: { serve: { tools: ['weather'] } } },
    });
    kernels.push(kernel);
    const url = await kernel.service('hubos').serve();
    const { client } = await connect(url);
    clients.push(client);
    const { tools } = await client.listTools();
    const listed = tools.find((tool) => tool.name === 'weather');
    expect(listed?.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        days: { type: 'integer', default: 1 },
      },
      required: ['city'],
    });
    expect(listed?.outputSchema).toMatchObject({
      type: 'object',
      properties: { forecast: { type: 'string' } },
    });
    const call = await client.callTool({ name: 'weather', arguments: { city: 'Oslo', days: 2 } });
    expect(call.structuredContent).toEqual({ forecast: 'Oslo: sunny for 2 days' });
    const bad = await client.callTool({ name: 'weather', arguments: { city: 'Oslo', days: 'two' } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('\\"days\\" must be number, got string \\"two\\"');
  });
});

describe('huge bad input', () => {
  it('tells the first twenty problems and how many more, for JSON Schema and Zod tools alike', async () => {
    const { z } = await import('zod');
    const { defineTool: define } = await import('../../core/index.ts');
    const { invokeTool: invoke } = await import('../../testing/index.ts');
    const items = Array.from({ length: 5000 }, (_, i) => `bad ${i}`);
    for (const inputSchema of [
      { type: 'object', properties: { xs: { type: 'array', items: { type: 'integer' } } } } as const,
      z.object({ xs: z.array(z.number().int()) }),
    ]) {
      const tool = define({ name: 'sum', description: 'Sums.', inputSchema, handler: () => 0 });
      const result = await invoke(tool, { xs: items });
      expect(result.ok).toBe(false);
      const message = result.ok ? '' : result.error.message;
      expect(message).toContain('and 4980 more problems like these');
      expect(message.length).toBeLessThan(4000);
    }
  });
});
