/**
 * The schema cache: a check compiled by one start is written as ajv standalone code and loaded,
 * not compiled, by the next; it checks exactly as the compiled one; what it cannot hold is
 * compiled each time. Turned on in this file only (each test file has its own module state).
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SchemaCompilers } from '../../core/json-schema.ts';
import { enableSchemaCache } from '../../core/schema-cache.ts';
import { tempDir } from '../helpers/run.ts';

const schema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2, maxLength: 40 },
    days: { type: 'integer', minimum: 1, default: 3 },
    email: { type: 'string', format: 'email' },
    unit: { enum: ['c', 'f'] },
  },
  required: ['city'],
  additionalProperties: false,
};

const inputs: unknown[] = [
  { city: 'Oslo' },
  { city: 'Oslo', days: 0, unit: 'k' },
  { city: 'O', email: 'not an address', extra: true },
  { days: '2' },
  'a string',
];

/** What a check answers for each input: valid or not, its errors, and the input after defaults. */
function answers(validate: (data: unknown) => boolean, errors: () => unknown) {
  return inputs.map((original) => {
    const data = structuredClone(original);
    const valid = validate(data);
    return { valid, errors: errors(), data };
  });
}

afterEach(() => vi.restoreAllMocks());

/** A fresh cache folder inside a private temp folder, turned on. */
async function cacheDir(): Promise<string> {
  const dir = join(await tempDir(), 'schemas');
  expect(enableSchemaCache(dir)).toBe(true);
  return dir;
}

describe('schema cache', () => {
  it('writes a compiled check, and a later compile loads it instead of compiling; both check alike', async () => {
    const dir = await cacheDir();
    const compiled = new SchemaCompilers().compile(schema);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);

    const compile = vi.spyOn(Ajv.prototype, 'compile');
    const kept = new SchemaCompilers().compile(schema);
    expect(compile).not.toHaveBeenCalled();
    expect(kept).not.toBe(compiled);
    expect(answers(kept, () => kept.errors)).toEqual(answers(compiled, () => compiled.errors));
    // The defaults are applied and the errors say what the compiled check says.
    expect(answers(kept, () => kept.errors)[0]).toMatchObject({ valid: true, data: { days: 3 } });
    expect(answers(kept, () => kept.errors)[2]!.valid).toBe(false);
  });

  it('compiles again, and writes anew, a kept check that does not load', async () => {
    const dir = await cacheDir();
    const other = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    new SchemaCompilers().compile(other);
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file!), 'throw new Error("damaged");');
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    const validate = new SchemaCompilers().compile(other);
    expect(compile).toHaveBeenCalledTimes(1);
    expect(validate({ n: 1 })).toBe(true);
    expect(validate({})).toBe(false);
    expect(readFileSync(join(dir, file!), 'utf8')).toContain('module.exports');
  });

  it('keeps no check of a schema with an $id or a $ref: compiling registers what later schemas refer to', async () => {
    const dir = await cacheDir();
    const compilers = new SchemaCompilers();
    compilers.compile({ $id: 'https://example.test/point', type: 'object', required: ['x'] });
    compilers.compile({ type: 'object', properties: { at: { $ref: 'https://example.test/point' } } });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a folder others may write to, and keeps nothing there', async () => {
    const shared = await tempDir();
    chmodSync(shared, 0o777);
    const dir = join(shared, 'schemas');
    expect(enableSchemaCache(dir)).toBe(false);
    const writable = join(await tempDir(), 'open');
    mkdirSync(writable, { mode: 0o700 });
    chmodSync(writable, 0o757);
    expect(enableSchemaCache(writable)).toBe(false);
  });

  it('stops writing when the folder holds its most checks', async () => {
    const dir = await cacheDir();
    for (let i = 0; i < 2_000; i++) writeFileSync(join(dir, `filler-${i}.cjs`), '');
    expect(enableSchemaCache(dir)).toBe(true);
    new SchemaCompilers().compile({ type: 'object', properties: { full: { type: 'boolean' } } });
    expect(readdirSync(dir)).toHaveLength(2_000);
  });

  it('keeps each dialect apart: the same keywords in draft-07 and 2020-12 are two checks', async () => {
    const dir = await cacheDir();
    const compilers = new SchemaCompilers();
    compilers.compile({ type: 'array', items: { type: 'string' } });
    compilers.compile({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      items: { type: 'string' },
    });
    expect(readdirSync(dir)).toHaveLength(2);
  });
});
