/**
 * The schema cache: a check compiled by one start is written as ajv standalone code and loaded,
 * not compiled, by the next; it checks exactly as the compiled one; what it cannot hold is
 * compiled each time. Turned on in this file only (each test file has its own module state).
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SchemaCompilers } from '../../core/json-schema.ts';
import { checkFile, enableSchemaCache } from '../../core/schema-cache.ts';
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

/** A fresh cache folder inside a private temp folder, turned on: the folder of this runtime's checks. */
async function cacheDir(): Promise<string> {
  const dir = join(await tempDir(), 'schemas');
  expect(enableSchemaCache(dir)).toBe(true);
  expect(checkFile('none', {})).toBeDefined(); // makes this runtime's folder, found below
  const [own] = readdirSync(dir);
  return join(dir, own!);
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

  it('runs no kept file that is not its own: a wrong digest, not a check, writable by others, a link', async () => {
    const dir = await cacheDir();
    const other = { type: 'object', properties: { k: { type: 'string' } } };
    new SchemaCompilers().compile(other);
    const [name] = readdirSync(dir);
    const file = join(dir, name!);
    const good = readFileSync(file, 'utf8');
    const notACheck = 'module.exports = {};';
    const signed = (code: string) => `${code}\n//sha256:${createHash('sha256').update(code).digest('hex')}\n`;
    const planted = join(dir, 'elsewhere.cjs');
    writeFileSync(planted, good);
    const tamper: (() => void)[] = [
      () => writeFileSync(file, good.replace('"string"', '"number"')), // the digest no longer matches
      () => writeFileSync(file, ''),
      () => writeFileSync(file, signed(notACheck)),
      () => chmodSync(file, 0o666),
      () => {
        rmSync(file);
        symlinkSync(planted, file);
      },
    ];
    for (const change of tamper) {
      change();
      const compile = vi.spyOn(Ajv.prototype, 'compile');
      const validate = new SchemaCompilers().compile(other);
      expect(compile).toHaveBeenCalledTimes(1);
      expect(validate({ k: 'text' })).toBe(true);
      expect(validate({ k: 1 })).toBe(false);
      compile.mockRestore();
      rmSync(file, { force: true });
      new SchemaCompilers().compile(other); // written anew for the next round
    }
  });

  it('keeps no check of a schema with a __proto__ key, which standalone code would turn into a prototype', async () => {
    const dir = await cacheDir();
    const schema = JSON.parse('{"type":"object","properties":{"v":{"const":{"__proto__":{"a":1}}}}}');
    const validate = new SchemaCompilers().compile(schema);
    expect(validate({ v: {} })).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
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
    expect(enableSchemaCache(dirname(dir))).toBe(true);
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
