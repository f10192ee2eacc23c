import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Ajv, ValidateFunction } from 'ajv';

/**
 * Compiled schema checks kept on disk between starts, as ajv standalone code (what Fastify's
 * ajv-compiler offers for the same reason): a start that finds a schema's check there loads a few
 * lines instead of ajv (~65 modules) and a compile, a tenth of a server's first run. Off unless
 * turned on: the CLI turns it on beside Node's compile cache, in the same private folder of the
 * user's. A file is named by a digest of everything its code depends on: the schema, the dialect
 * and options, and the ajv and ajv-formats that compiled it (their paths and versions).
 */
const require = createRequire(import.meta.url);
let folder: string | undefined;
let runtime: { key: string; rewrite: (code: string) => string } | undefined;

/** At most this many checks are kept: tools from a server whose schemas change at each listing do not fill the disk. */
const MAX_KEPT = 2_000;
let kept: number | undefined;

/**
 * Keeps compiled checks in `dir` (made if missing, private) from now on; true when it does. A
 * folder another user owns or may write to is refused (a file put there would run as code).
 */
export function enableSchemaCache(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (![dir, dirname(dir)].every(ownedAndPrivate)) return false;
  } catch {
    return false;
  }
  folder = dir;
  kept = undefined;
  return true;
}

function ownedAndPrivate(path: string): boolean {
  const stat = lstatSync(path);
  const uid = process.getuid?.();
  return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
}

/** Whether checks are kept: compilers then keep the source ajv needs to write them. @internal */
export function schemaCacheEnabled(): boolean {
  return folder !== undefined;
}

/**
 * Schemas with identifiers or references are compiled each time: compiling registers an `$id`
 * with ajv, which a later schema's `$ref` finds there, and a kept check would skip that.
 */
const REFERENCING = /"\$(id|ref|anchor|dynamicRef|dynamicAnchor|recursiveRef|recursiveAnchor)":/;

/** The check an earlier start compiled for this schema, or undefined. @internal */
export function cachedCheck(variant: string, schema: object): ValidateFunction | undefined {
  if (!folder) return undefined;
  const json = JSON.stringify(schema);
  if (REFERENCING.test(json)) return undefined;
  try {
    return require(fileOf(folder, variant, json)) as ValidateFunction;
  } catch {
    return undefined; // not there (or unreadable): compiled, and written anew
  }
}

/**
 * Writes a check ajv compiled (with `code.source`) for the next start. A check whose code cannot
 * stand alone (a keyword with a function of its own) is not kept; a failed write loses nothing.
 * @internal
 */
export function keepCheck(variant: string, schema: object, ajv: Ajv, validate: ValidateFunction): void {
  if (!folder) return;
  const json = JSON.stringify(schema);
  if (REFERENCING.test(json)) return;
  try {
    const standalone = (
      require('ajv/dist/standalone') as { default: (a: Ajv, v: ValidateFunction) => string }
    ).default;
    kept ??= readdirSync(folder).length;
    if (kept >= MAX_KEPT) return;
    const file = fileOf(folder, variant, json);
    // Written whole under another name, then renamed: a start reading it never sees half a file.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, ajvRuntime().rewrite(standalone(ajv, validate)), { mode: 0o600 });
    renameSync(partial, file);
    kept++;
  } catch {
    // Kept or not, the check in hand is the same.
  }
}

function fileOf(dir: string, variant: string, json: string): string {
  const digest = createHash('sha256').update(`${ajvRuntime().key}\0${variant}\0${json}`).digest('hex');
  return join(dir, `${digest.slice(0, 40)}.cjs`);
}

/**
 * Standalone code requires ajv's helpers by package name, which the cache folder cannot resolve:
 * they are required by their absolute paths, which with the versions name the runtime.
 */
function ajvRuntime(): NonNullable<typeof runtime> {
  if (runtime) return runtime;
  const versionOf = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
  const paths = {
    ajv: require.resolve('ajv/package.json').slice(0, -'/package.json'.length),
    'ajv-formats': require.resolve('ajv-formats/package.json').slice(0, -'/package.json'.length),
  };
  runtime = {
    key: `ajv@${versionOf('ajv')} ${paths.ajv} ajv-formats@${versionOf('ajv-formats')} ${paths['ajv-formats']}`,
    rewrite: (code) =>
      code.replace(
        /require\("(ajv|ajv-formats)(\/[^"]*)"\)/g,
        (_, name: 'ajv' | 'ajv-formats', rest: string) => `require(${JSON.stringify(paths[name] + rest)})`,
      ),
  };
  return runtime;
}
