import { describe, expect, it } from 'vitest';
import { GuardrailRegistry, guardrails } from '../../core/index.ts';
import { context } from './context.ts';

const schema = {
  type: 'object',
  required: ['answer', 'confidence'],
  properties: {
    answer: { type: 'string' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    sources: { type: 'array', items: { type: 'string', format: 'uri' } },
  },
  additionalProperties: false,
} as const;

describe('json-schema', () => {
  const guard = guardrails.jsonSchema({ schema });
  const output = context('output', { final: true });

  it('checks answers and tool outputs only, whole', () => {
    expect(guard.stages).toEqual(['output', 'tool-output']);
    expect(guard.streaming).toBe('whole');
  });

  it('passes an answer that parses and fits', async () => {
    expect(
      await guard.check('{"answer": "42", "confidence": 0.9, "sources": ["https://example.com"]}', output),
    ).toBe(undefined);
  });

  it('trips on an answer that is not JSON, saying so', async () => {
    expect(await guard.check('Sure! Here is the JSON: {"answer": "42"}', output)).toMatchObject({
      action: 'trip',
      reason: expect.stringMatching(/^the answer is not JSON \(/),
    });
  });

  it('trips naming the failing paths', async () => {
    const verdict = await guard.check('{"answer": 42, "confidence": 2, "sources": ["not a url"]}', output);
    expect(verdict).toMatchObject({ action: 'trip' });
    const reason = (verdict as { reason: string }).reason;
    expect(reason).toMatch(/^the answer does not fit the schema: /);
    expect(reason).toContain('"answer" must be string, got integer 42');
    expect(reason).toContain('"confidence" must be <= 1, got integer 2');
    expect(reason).toContain('"sources[0]" must match format "uri"');
  });

  it('names a missing property and an unknown one', async () => {
    const { reason } = (await guard.check('{"answer": "x", "confidense": 1}', output)) as { reason: string };
    expect(reason).toContain('missing required property "confidence"');
    expect(reason).toContain('unknown property "confidense"');
  });

  it("checks a tool's JSON output as it is, without filling defaults into it", async () => {
    const withDefault = guardrails.jsonSchema({
      schema: { type: 'object', properties: { page: { type: 'integer', default: 1 } } },
    });
    const result = { items: [] };
    expect(await withDefault.check(result, context('tool-output'))).toBe(undefined);
    expect(result).toEqual({ items: [] });
    expect(await guard.check({ answer: 'x' }, context('tool-output'))).toMatchObject({
      reason: expect.stringContaining("the tool's output does not fit the schema: missing required property"),
    });
  });

  it('takes a 2020-12 schema and boolean schemas', async () => {
    const tuple = guardrails.jsonSchema({
      schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{ type: 'number' }] },
    });
    expect(await tuple.check('[1]', output)).toBe(undefined);
    expect(await tuple.check('["one"]', output)).toMatchObject({ action: 'trip' });
    expect(await guardrails.jsonSchema({ schema: false }).check('1', output)).toMatchObject({
      action: 'trip',
    });
  });

  it.each([
    [{}, 'option "schema" is required'],
    [{ schema: 'object' }, 'option "schema" is required'],
    [{ schema: { type: 'objekt' } }, 'option "schema" is not a valid JSON Schema'],
    [{ schema: { $ref: '#/definitions/missing' } }, 'option "schema" does not compile'],
  ])('refuses %j', (options, message) => {
    expect(() =>
      new GuardrailRegistry().resolve({ use: 'json-schema', ...options }, 'guardrails.output[0]'),
    ).toThrow(
      expect.objectContaining({
        code: 'GUARDRAIL_INVALID',
        message: expect.stringContaining(`guardrails.output[0]: json-schema: ${message}`),
      }),
    );
  });
});
