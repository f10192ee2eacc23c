import { existsSync, statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadAppModulesAsWritten } from './app-module-format.ts';
import { errorMessage, HubosError } from './errors.ts';

const EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];
export const CONFIG_FILES = EXTENSIONS.map((ext) => `agent.config${ext}`);

export interface FoundConfig {
  /** The module's default export: an object, a promise, or a function of `{ mode, command }`. */
  exported: unknown;
  file: string;
}

/**
 * Finds and imports the config: `configFile` when given, otherwise the first `agent.config.*`
 * from `cwd` upwards. Returns undefined when there is none (the caller uses the defaults).
 * TypeScript configs load through Node's type stripping, so they may import other `.ts` files;
 * a config written as an ES module loads as one whatever the app's package.json `type` says.
 */
export async function loadConfigFile(options: {
  cwd: string;
  configFile?: string;
}): Promise<FoundConfig | undefined> {
  if (options.configFile !== undefined) {
    const file = resolve(options.cwd, options.configFile);
    if (!existsSync(file) || !statSync(file).isFile()) {
      throw new HubosError('CONFIG_NOT_FOUND', `config file not found: ${file}`, { details: { file } });
    }
    if (!EXTENSIONS.includes(extname(file))) {
      throw new HubosError(
        'CONFIG_LOAD_FAILED',
        `cannot load ${file}: a config must be one of ${EXTENSIONS.join(', ')} (e.g. agent.config.ts)`,
        { details: { file } },
      );
    }
    return { exported: await importConfig(file), file };
  }
  // Loaded to search only: a config named on the command line (--config) needs no search.
  const { cosmiconfig } = await import('cosmiconfig');
  const explorer = cosmiconfig('hubos', {
    searchPlaces: CONFIG_FILES,
    searchStrategy: 'global',
    // Our loader returns the module, not its default export: a file without one is an error, not "empty".
    loaders: Object.fromEntries(EXTENSIONS.map((ext) => [ext, (file: string) => importModule(file)])),
    // An empty agent.config.* is the user's config with no default export, not a reason to look further up.
    ignoreEmptySearchPlaces: false,
    cache: false,
  });
  let found: { config: unknown; filepath: string } | null;
  try {
    found = await explorer.search(options.cwd);
  } catch (error) {
    if (HubosError.is(error)) throw error;
    throw new HubosError(
      'CONFIG_LOAD_FAILED',
      `searching for agent.config.* failed: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  if (!found) return undefined;
  return {
    exported: defaultExport((found.config ?? {}) as Record<string, unknown>, found.filepath),
    file: found.filepath,
  };
}

async function importConfig(file: string): Promise<unknown> {
  return defaultExport(await importModule(file), file);
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  loadAppModulesAsWritten();
  try {
    return await import(pathToFileURL(file).href);
  } catch (error) {
    // An error HubOS raised while the config ran (a plugin factory's options, say) says it all.
    if (HubosError.is(error)) throw error;
    const code = (error as { code?: string }).code;
    const hint =
      code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX'
        ? ' (TypeScript configs run with Node type stripping: use erasable syntax only, no enums or namespaces)'
        : /\.[jt]s$/.test(file) &&
            /\b(require|module|exports) is not defined in ES module scope/.test(errorMessage(error))
          ? ` (this file is an ES module, since its package.json says "type": "module" or its name ends in .mjs/.mts: write import/export, or rename it to ${basename(file).replace(/\.[^.]+$/, extname(file).endsWith('ts') ? '.cts' : '.cjs')} to keep require/module.exports)`
          : '';
    // Where it went wrong, with the line and a caret: loaded only when a config fails.
    const { codeFrame, locateLoadError } = await import('./config-error-location.ts');
    const at = await locateLoadError(error, file).catch(() => undefined);
    // JSON.parse's message quotes the text around the spot; the code frame shows it better.
    const said = errorMessage(error).replace(/, (?:\.\.\.)?"[\s\S]*" is not valid JSON$/, ': not valid JSON');
    const what = oneLine(error instanceof SyntaxError ? `syntax error: ${said}` : said);
    const where = at ? ` at ${at.file}:${at.line}:${at.column}` : '';
    const frame = at ? codeFrame(at) : '';
    throw new HubosError(
      'CONFIG_LOAD_FAILED',
      `cannot load ${file}: ${what}${hint}${where}${frame ? `\n${frame}` : ''}`,
      { cause: error, details: { file, ...(at ? { at } : {}) } },
    );
  }
}

/** A message on one line and at most 500 characters: a JSON error quotes the file's text. */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return flat.length > 500 ? `${flat.slice(0, 499)}…` : flat;
}

function defaultExport(module: Record<string, unknown>, file: string): unknown {
  if (!('default' in module) || module.default === undefined) {
    throw new HubosError(
      'CONFIG_INVALID',
      `${file} has no default export: write export default defineConfig({ ... })`,
      { details: { file } },
    );
  }
  return module.default;
}
