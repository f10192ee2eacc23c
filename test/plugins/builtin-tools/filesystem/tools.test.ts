import { describe, expect, it } from 'vitest';
import { Registry } from '../../../../core/index.ts';
import { createAjv } from '../../../../core/internal.ts';
import {
  FILESYSTEM_CONFIG_SCHEMA,
  FILESYSTEM_DEFAULTS,
  filesystemTools,
} from '../../../../plugins/builtin-tools/filesystem/index.ts';

describe('filesystemTools', () => {
  it('returns the five tools in order with their permissions', () => {
    const tools = filesystemTools();
    expect(tools.map((t) => [t.name, t.permissions])).toEqual([
      ['filesystem_read', ['fs:read']],
      ['filesystem_write', ['fs:write']],
      ['filesystem_list', ['fs:read']],
      ['filesystem_delete', ['fs:delete']],
      ['filesystem_search', ['fs:read']],
    ]);
    const registry = new Registry();
    registry.registerBatch(tools);
    expect(registry.list().map((t) => t.name)).toHaveLength(5);
  });

  it('declares the documented inputs, required ones, descriptions and closed schemas', () => {
    const shape = Object.fromEntries(
      filesystemTools().map((tool) => {
        const schema = tool.inputSchema as {
          properties: Record<string, { description?: string }>;
          required?: string[];
          additionalProperties: unknown;
        };
        expect(schema.additionalProperties).toBe(false);
        expect(tool.description.length).toBeGreaterThan(40);
        for (const property of Object.values(schema.properties)) expect(property.description).toBeTruthy();
        return [tool.name, { properties: Object.keys(schema.properties), required: schema.required ?? [] }];
      }),
    );
    expect(shape).toEqual({
      filesystem_read: { properties: ['path', 'offset', 'limit'], required: ['path'] },
      filesystem_write: { properties: ['path', 'content', 'append'], required: ['path', 'content'] },
      filesystem_list: { properties: ['path', 'recursive', 'depth'], required: [] },
      filesystem_delete: { properties: ['path', 'recursive'], required: ['path'] },
      filesystem_search: {
        properties: ['pattern', 'path', 'glob', 'literal', 'max_results'],
        required: ['pattern'],
      },
    });
  });

  it('applies the defaults before the handler runs', () => {
    const registry = new Registry();
    registry.registerBatch(filesystemTools());
    expect(registry.checkInput('filesystem_list', {})).toEqual({
      ok: true,
      input: { path: '.', recursive: false, depth: 5 },
    });
    expect(registry.checkInput('filesystem_search', { pattern: 'x' })).toEqual({
      ok: true,
      input: { pattern: 'x', path: '.', literal: false, max_results: 50 },
    });
  });

  it('rejects limits that are not positive integers', () => {
    expect(() => filesystemTools({ maxReadBytes: 0 })).toThrow('maxReadBytes must be a positive integer');
    expect(() => filesystemTools({ maxListEntries: 1.5 })).toThrow('maxListEntries');
    expect(() => filesystemTools({ searchRegexWorkers: 0 })).toThrow('searchRegexWorkers');
    // biome-ignore lint/suspicious/noExplicitAny: a config read from JSON may hold anything.
    expect(() => filesystemTools({ readHardLinkedFiles: 'yes' as any })).toThrow(
      'readHardLinkedFiles must be true or false',
    );
  });
});

describe('FILESYSTEM_CONFIG_SCHEMA', () => {
  const validate = createAjv().compile(FILESYSTEM_CONFIG_SCHEMA);

  it('fills in the defaults', () => {
    const config = {};
    expect(validate(config)).toBe(true);
    expect(config).toEqual(FILESYSTEM_DEFAULTS);
    expect(FILESYSTEM_DEFAULTS).toEqual({
      maxReadBytes: 262_144,
      maxListEntries: 1000,
      maxSearchResults: 100,
      maxSearchFileBytes: 2_097_152,
      searchRegexTimeoutMs: 2000,
      searchRegexWorkers: 2,
      readHardLinkedFiles: false,
    });
  });

  it('rejects unknown keys and bad values', () => {
    expect(validate({ maxReadByte: 1 })).toBe(false);
    expect(validate({ maxReadBytes: -1 })).toBe(false);
    expect(validate({ maxSearchResults: '10' })).toBe(false);
    expect(validate({ searchRegexWorkers: 0 })).toBe(false);
    expect(validate({ readHardLinkedFiles: 'yes' })).toBe(false);
  });
});
