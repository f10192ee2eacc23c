import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { compileFunction } from 'node:vm';
import type { Ajv, ValidateFunction } from 'ajv';
import { isPrivateFolder, ownedBySelf, privateCodeFolder, writableByOthers } from './private-folder.ts';
import { hubosPackageRoot, hubosVersion } from './version.ts';

/**
 * Compiled schema checks kept on disk between starts, as ajv standalone code (what Fastify's
 * ajv-compiler offers for the same reason): a start that finds a schema's check there runs a few
 * lines instead of loading ajv (~65 modules) and compiling, a tenth of a server's first run. Off
 * unless turned on: the CLI turns it on beside Node's compile cache, in the user's own cache.
 *
 * A kept file runs as code, so the folder is used only when no other user can change it or any
 * folder above it, a file is read only if it is a regular file of this user's that nobody else
 * may write, and it carries the digest of its code, which is checked before it runs. Each version
 * of HubOS and ajv keeps its checks in a folder of its own; a file is named by a digest of the
 * schema, the dialect and the options.
 */
const require = createRequire(import.meta.url);
/** The folder turned on, and (made on first use) the folder of this runtime's checks in it. */
let base: string | undefined;
let folder: string | undefined;
let kept: number | undefined;

/** At most this many checks a folder: tools whose schemas change at each listing do not fill the disk. */
const MAX_KEPT = 2_000;
/** A check's code larger than this is not kept (a schema of a megabyte compiles to two). */
const MAX_BYTES = 256 * 1024;
/**
 * Schemas compiled each time: with identifiers or references (compiling registers an `$id` with
 * ajv, which a later `$ref` finds there; a kept check would skip that), and with a `__proto__`
 * key, which ajv's standalone code writes as an object literal, where it would set a prototype.
 */
const NOT_KEPT = /"(\$(id|ref|anchor|dynamicRef|dynamicAnchor|recursiveRef|recursiveAnchor)|__proto__)":/;
const TRAILER = '\n//sha256:';

/**
 * Keeps compiled checks under `dir` (made if missing, private) from now on; true when it does.
 * Refused (false) when another user owns or may write to it or to a folder above it.
 */
export function enableSchemaCache(dir: string): boolean {
  if (!privateCodeFolder(dir)) return false;
  base = dir;
  folder = undefined;
  kept = undefined;
  return true;
}

/** Whether checks are kept: compilers then keep the source ajv needs to write them. @internal */
export function schemaCacheEnabled(): boolean {
  return base !== undefined;
}

/** This runtime's folder, made when a check is first looked for: a command that compiles nothing pays nothing. */
function ownFolder(): string | undefined {
  if (folder || !base) return folder;
  try {
    const own = join(base, runtimeKey());
    mkdirSync(own, { mode: 0o700, recursive: true });
    if (isPrivateFolder(own)) folder = own;
    else base = undefined;
  } catch {
    base = undefined;
  }
  return folder;
}

/**
 * Where the check of this schema is kept, or undefined when none is (the cache is off, or the
 * schema is one compiled each time). `variant` names what else the code depends on. @internal
 */
export function checkFile(variant: string, schema: object): string | undefined {
  const folder = ownFolder();
  if (!folder) return undefined;
  const json = JSON.stringify(schema);
  return NOT_KEPT.test(json) ? undefined : join(folder, `${digest(`${variant}\0${json}`).slice(0, 40)}.cjs`);
}

/** The check an earlier start kept in `file`, or undefined. @internal */
export function cachedCheck(file: string): ValidateFunction | undefined {
  try {
    const text = readOwnFile(file);
    const at = text?.lastIndexOf(TRAILER) ?? -1;
    if (text === undefined || at < 0) return undefined;
    const code = text.slice(0, at);
    if (text.slice(at + TRAILER.length).trim() !== digest(code)) return undefined;
    const module = { exports: {} as unknown };
    compileFunction(code, ['require', 'module', 'exports'], { filename: file })(
      require,
      module,
      module.exports,
    );
    return typeof module.exports === 'function' ? (module.exports as ValidateFunction) : undefined;
  } catch {
    return undefined; // not there, unreadable, or not a check: compiled, and written anew
  }
}

/**
 * Writes to `file` a check ajv compiled (with `code.source`) for the next start. A check whose
 * code cannot stand alone (a keyword with a function of its own) is not kept; a failed write
 * loses nothing. @internal
 */
export function keepCheck(file: string, ajv: Ajv, validate: ValidateFunction): void {
  try {
    kept ??= readdirSync(dirname(file)).length;
    if (kept >= MAX_KEPT) return;
    const standalone = (
      require('ajv/dist/standalone') as { default: (a: Ajv, v: ValidateFunction) => string }
    ).default;
    const code = standalone(ajv, validate);
    if (code.length > MAX_BYTES) return;
    // Written whole under a name no other writer picks, then renamed: a reader never sees half a
    // file under the real name, and one that is damaged anyway fails its digest.
    const partial = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(partial, `${code}${TRAILER}${digest(code)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(partial, file);
    kept++;
  } catch {
    // Kept or not, the check in hand is the same.
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** What the kept code depends on besides the schema: HubOS's version and ajv's and ajv-formats'. */
function runtimeKey(): string {
  const versionOf = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
  const parts = [
    `hubos@${hubosVersion()} ${hubosPackageRoot()}`,
    `ajv@${versionOf('ajv')} ${require.resolve('ajv')}`,
    `ajv-formats@${versionOf('ajv-formats')} ${require.resolve('ajv-formats')}`,
  ];
  return digest(parts.join('\n')).slice(0, 16);
}

/** The file's text when it is a regular file of this user's that nobody else may write. */
function readOwnFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    return stat.isFile() && ownedBySelf(stat) && !writableByOthers(stat)
      ? readFileSync(fd, 'utf8')
      : undefined;
  } finally {
    closeSync(fd);
  }
}
