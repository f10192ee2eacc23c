import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import checkDraft07 from '../../core/draft-07-check.generated.ts';
import { createAjv } from '../../core/json-schema.ts';
import { draft07CheckModule, GENERATED_FILE } from '../../scripts/draft-07-check.ts';

describe('the draft-07 meta-schema check compiled ahead of time', () => {
  it('is what the installed ajv makes of the meta-schema (else: node scripts/draft-07-check.ts)', () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(draft07CheckModule());
  });

  it('is the one ajv checks schemas with, so no start compiles the meta-schema', () => {
    const ajv = createAjv('draft-07');
    expect(ajv.getSchema('http://json-schema.org/draft-07/schema')).toBe(checkDraft07);
  });

  it('is left to ajv when options change what the meta-schema check is ($data, fewer errors)', () => {
    for (const extra of [{ $data: true }, { allErrors: false }, { verbose: false }]) {
      const ajv = createAjv('draft-07', extra);
      expect(ajv.getSchema('http://json-schema.org/draft-07/schema'), JSON.stringify(extra)).not.toBe(
        checkDraft07,
      );
    }
  });

  it('finds what ajv finds, in its words', () => {
    const ajv = createAjv('draft-07');
    expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'strng' } } })).toBe(false);
    expect(ajv.errorsText(ajv.errors)).toContain(
      'data/properties/a/type must be equal to one of the allowed values',
    );
    expect(() => ajv.compile({ type: 'object', required: 'a' })).toThrow('data/required must be array');
    expect(ajv.validateSchema({ type: 'object', properties: { a: { enum: [1, 2] } }, required: ['a'] })).toBe(
      true,
    );
  });
});
