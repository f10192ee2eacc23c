import { existsSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cosmiconfig } from 'cosmiconfig';
import { errorMessage, HubosError } from './errors.ts';

export const CONFIG_FILES = ['agent.config.ts', 'agent.config.mts', 'agent.config.js', 'agent.config.mjs'];
const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

export interface FoundConfig {
  /** The module's default export: an object, a promise, or a function of `{ mode, command }`. */
  exported: unknown;
  file: string;
}

/**
 * Finds and imports the config: `configFile` when given, otherwise the first `agent.config.*`
 * from `cwd` upwards. Returns undefined when there is none (the caller uses the defaults).
 * TypeScript configs load through Node's type stripping, so they may import other `.ts` files.
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
  try {
    return await import(pathToFileURL(file).href);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const hint =
      code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX' || code === 'ERR_INVALID_TYPESCRIPT_SYNTAX'
        ? ' (TypeScript configs run with Node type stripping: use erasable syntax only, no enums or namespaces)'
        : '';
    throw new HubosError('CONFIG_LOAD_FAILED', `cannot load ${file}: ${errorMessage(error)}${hint}`, {
      cause: error,
      details: { file },
    });
  }
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
