import { describe, expect, it } from 'vitest';
import { createAjv } from '../../../core/json-schema.ts';
import { exampleFor } from '../../../plugins/models/schema-example.ts';

const ajv = createAjv();

/** The example of a schema, checked by the same validator the tools use. */
function accepted(schema: Record<string, unknown>): unknown {
  const example = exampleFor(schema);
  const validate = ajv.compile(schema);
  expect(
    validate(structuredClone(example)),
    `${JSON.stringify(example)}: ${ajv.errorsText(validate.errors)}`,
  ).toBe(true);
  return example;
}

describe('exampleFor: an input its schema accepts', () => {
  it('gives the required properties a placeholder of their type and leaves the optional ones out', () => {
    expect(
      accepted({
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1 },
          count: { type: 'integer', minimum: 5, maximum: 10 },
          ratio: { type: 'number', exclusiveMinimum: 0, maximum: 0.5 },
          on: { type: 'boolean' },
          mode: { enum: ['fast', 'slow'] },
          kind: { const: 'k' },
          optional: { type: 'string' },
        },
        required: ['query', 'count', 'ratio', 'on', 'mode', 'kind'],
        additionalProperties: false,
      }),
    ).toEqual({ query: 'query', count: 5, ratio: 0.25, on: true, mode: 'fast', kind: 'k' });
  });

  it('follows formats, lengths, patterns, names and the schema’s own examples and defaults', () => {
    expect(
      accepted({
        type: 'object',
        properties: {
          url: { type: 'string' },
          when: { type: 'string', format: 'date-time' },
          id: { type: 'string', minLength: 5 },
          code: { type: 'string', maxLength: 2 },
          route: { type: 'string', pattern: '^/' },
          city: { type: 'string', examples: ['Paris'] },
          unit: { type: 'string', default: 'celsius' },
        },
        required: ['url', 'when', 'id', 'code', 'route', 'city', 'unit'],
      }),
    ).toEqual({
      url: 'https://example.com',
      when: '2025-01-01T12:00:00Z',
      id: 'idxxx',
      code: 'co',
      route: '/route',
      city: 'Paris',
      unit: 'celsius',
    });
  });

  it('fills nested objects, arrays of a minimum size, unions and intersections', () => {
    const example = accepted({
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' }, minItems: 2, uniqueItems: true },
        filters: {
          type: 'array',
          items: { type: 'object', properties: { field: { type: 'string' } }, required: ['field'] },
        },
        target: { anyOf: [{ type: 'integer', multipleOf: 5, minimum: 3 }, { type: 'string' }] },
        nullable: { type: ['null', 'integer'], maximum: -3 },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { type: 'object', properties: { b: { type: 'integer' } }, required: ['b'] },
          ],
        },
      },
      required: ['tags', 'filters', 'target', 'nullable', 'both'],
    });
    expect(example).toEqual({
      tags: ['tags', 'tags2'],
      filters: [{ field: 'field' }],
      target: 5,
      nullable: -3,
      both: { a: 'a', b: 1 },
    });
  });

  it('is {} for an object with nothing required, and for a schema it cannot read', () => {
    expect(accepted({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({});
    expect(exampleFor(undefined)).toEqual({});
    expect(exampleFor({ $ref: '#/definitions/x' })).toEqual({});
  });
});
