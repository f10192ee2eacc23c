/**
 * Property: no generated path — `..`, absolute, unicode, NUL bytes, symlink components pointing
 * in, out, up, in loops and nowhere — resolves outside the workspace. The confinement functions
 * either throw or return a path inside the root, and the tools never return or change outside data.
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, executeTool, MemoryStore, Registry } from '../../../../core/index.ts';
import {
  confinePath,
  isInside,
  realpathInside,
} from '../../../../plugins/builtin-tools/filesystem/confine.ts';
import { filesystemTools } from '../../../../plugins/builtin-tools/filesystem/index.ts';
import { SECRET } from './helpers.ts';

let root: string;
let outside: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'hubos-fs-prop-root-')));
  outside = await realpath(await mkdtemp(join(tmpdir(), 'hubos-fs-prop-outside-')));
  await writeFile(join(outside, 'secret.txt'), SECRET);
  await mkdir(join(root, 'sub/ü日本'), { recursive: true });
  await writeFile(join(root, 'sub/in.txt'), 'INSIDE');
  const links: Record<string, string> = {
    out: outside,
    outfile: join(outside, 'secret.txt'),
    'dangling-out': join(outside, 'nothing/here'),
    in: 'sub',
    'abs-in': join(root, 'sub'),
    up: '..',
    'sub/up2': '../..',
    loop: 'loop',
    'sub/back': '../out',
    dangling: 'missing/deeper',
  };
  for (const [name, target] of Object.entries(links)) await symlink(target, join(root, name));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const SEGMENTS = [
  '..',
  '.',
  '',
  'sub',
  'in.txt',
  'ü日本',
  'out',
  'outfile',
  'dangling-out',
  'in',
  'abs-in',
  'up',
  'up2',
  'loop',
  'back',
  'dangling',
  'secret.txt',
  'etc',
  'passwd',
  '\u0000',
  'a\u0000b',
  '…',
  '%2e%2e',
  '..\\..',
];

/** Paths built from meaningful segments and arbitrary unicode, optionally absolute. */
const paths = fc
  .tuple(
    fc.constantFrom('', '/', '//', 'ROOT/', 'OUTSIDE/', '/etc/', './', '../'),
    fc.array(fc.oneof(fc.constantFrom(...SEGMENTS), fc.string({ unit: 'grapheme', maxLength: 6 })), {
      maxLength: 8,
    }),
    fc.constantFrom('', '/', '/.', '/..'),
  )
  .map(([head, segments, tail]) =>
    `${head}${segments.join('/')}${tail}`.replace('ROOT', () => root).replace('OUTSIDE', () => outside),
  );

describe('confinement property', () => {
  it('confinePath throws or returns a path inside the root', () => {
    fc.assert(
      fc.property(paths, (path) => {
        let resolved: string;
        try {
          resolved = confinePath(root, path);
        } catch {
          return;
        }
        expect(isInside(root, resolved)).toBe(true);
        expect(resolved).not.toContain('\u0000');
      }),
      { numRuns: 2_000 },
    );
  });

  it('realpathInside throws or returns a real path inside the root', async () => {
    let resolvedCount = 0;
    await fc.assert(
      fc.asyncProperty(paths, async (path) => {
        let resolved: string;
        try {
          resolved = await realpathInside(root, path);
        } catch {
          return;
        }
        expect(isInside(root, resolved)).toBe(true);
        // No symlink is left in it, dangling ones included: the part that exists is its own real path.
        let existing = resolved;
        while (
          !(await lstat(existing).then(
            () => true,
            () => false,
          ))
        )
          existing = dirname(existing);
        expect(await realpath(existing)).toBe(existing);
        resolvedCount++;
      }),
      { numRuns: 1_000 },
    );
    expect(resolvedCount).toBeGreaterThan(100); // the generator reaches inside paths, not only escapes
  });

  it('the tools never return, list, find or write anything outside', async () => {
    const registry = new Registry();
    registry.registerBatch(filesystemTools());
    const env = {
      signal: new AbortController().signal,
      agentId: 'property',
      sandbox: createSandbox(root),
      store: new MemoryStore(),
    };
    const call = async (name: string, input: object) =>
      JSON.stringify(await executeTool(registry, name, input, env));
    await fc.assert(
      fc.asyncProperty(paths, async (path) => {
        for (const text of [
          await call('filesystem_read', { path: path || '.' }),
          await call('filesystem_list', { path, recursive: true }),
          await call('filesystem_search', { pattern: SECRET, path }),
          await call('filesystem_write', { path: path || '.', content: 'written' }),
        ]) {
          expect(text).not.toContain(SECRET);
        }
      }),
      { numRuns: 300 },
    );
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(await readFile(join(root, 'sub/in.txt'), 'utf8')).toMatch(/^(INSIDE|written)$/);
  });
});
