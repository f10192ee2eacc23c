import { existsSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadAppModulesAsWritten } from './app-module-format.ts';
import { errorMessage, HubosError } from './errors.ts';
import { describeValue } from './json-schema.ts';
import { describeNotPlugin, isPlugin, type Plugin, type PluginOption } from './plugin.ts';
import { declaredOptions } from './plugin-options.ts';

/**
 * Flattens config `plugins` into plugin objects: skips falsy entries, walks nested arrays, awaits
 * promises, and imports string specifiers (`'pkg'`, `'./local.ts'`, `['pkg', options]`) relative
 * to `baseDir` (the config file's folder). A factory declared with an options schema gets its
 * options checked first (PLUGIN_OPTIONS_INVALID naming the specifier).
 */
export async function resolvePlugins(options: readonly PluginOption[], baseDir: string): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  await walk(options, 'plugins', baseDir, plugins);
  return plugins;
}

async function walk(option: unknown, at: string, baseDir: string, out: Plugin[]): Promise<void> {
  if (option === false || option === null || option === undefined || option === '') return;
  if (isPromiseLike(option)) {
    await walk(await settled(option, at), at, baseDir, out);
  } else if (isPlugin(option)) {
    out.push(option);
  } else if (typeof option === 'string') {
    await walk(await loadSpecifier(option, undefined, baseDir), option, baseDir, out);
  } else if (isTuple(option)) {
    await walk(await loadSpecifier(option[0], option[1], baseDir), option[0], baseDir, out);
  } else if (Array.isArray(option)) {
    for (const [index, item] of option.entries()) await walk(item, `${at}[${index}]`, baseDir, out);
  } else if (typeof option === 'function') {
    throw new HubosError(
      'PLUGIN_INVALID',
      `${at}: got a plugin factory, not a plugin: call it (e.g. ${option.name || 'myPlugin'}()) or give its package name`,
    );
  } else {
    throw new HubosError(
      'PLUGIN_INVALID',
      `${at}: expected a plugin, a module specifier or [specifier, options]; ${describeNotPlugin(option)}`,
    );
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** What a promise in `plugins` resolves to; a rejection without a code of its own says where it was. */
async function settled(promise: PromiseLike<unknown>, at: string): Promise<unknown> {
  try {
    return await promise;
  } catch (error) {
    if (HubosError.is(error)) throw error;
    throw new HubosError('PLUGIN_LOAD_FAILED', `${at}: a promised plugin failed: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

/** `['pkg', { options }]`, as opposed to a nested list of plugins. */
function isTuple(value: unknown): value is readonly [string, unknown] {
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string') return false;
  const options = value[1];
  return (
    options === undefined ||
    (typeof options === 'object' && options !== null && !Array.isArray(options) && !isPlugin(options))
  );
}

async function loadSpecifier(specifier: string, options: unknown, baseDir: string): Promise<unknown> {
  // A local plugin file loads as the ES module it is written as, whatever the app's package.json says.
  const url = await locate(specifier, baseDir);
  loadAppModulesAsWritten();
  let module: Record<string, unknown>;
  try {
    module = await import(url);
  } catch (error) {
    throw new HubosError(
      'PLUGIN_LOAD_FAILED',
      `plugin "${specifier}" failed to load: ${errorMessage(error)}`,
      {
        cause: error,
        details: { plugin: specifier },
      },
    );
  }
  const exported = module.default;
  if (isPlugin(exported)) {
    if (options !== undefined) {
      throw new HubosError(
        'PLUGIN_INVALID',
        `plugin "${specifier}" exports a plugin object, which takes no options: remove the options or export a factory`,
        { details: { plugin: specifier } },
      );
    }
    return exported;
  }
  if (typeof exported === 'function') {
    const declared = declaredOptions(exported);
    // Checked before the factory runs, in the words of the config: the specifier names the plugin.
    const checked = declared ? (await declared.check(options, specifier)).value : options;
    let made: unknown;
    try {
      made = await (declared ? declared.factory(checked) : exported(options));
    } catch (error) {
      if (HubosError.is(error, 'PLUGIN_OPTIONS_INVALID')) throw error;
      throw new HubosError(
        'PLUGIN_LOAD_FAILED',
        `plugin "${specifier}": its factory threw: ${errorMessage(error)}`,
        {
          cause: error,
          details: { plugin: specifier },
        },
      );
    }
    if (isPlugin(made) || Array.isArray(made)) return made;
    throw new HubosError(
      'PLUGIN_INVALID',
      `plugin "${specifier}": its default export is a function but returned ${describeValue(made)}, not a plugin (an object with "name" and "apply")`,
      { details: { plugin: specifier } },
    );
  }
  const names = Object.keys(module).join(', ') || 'nothing';
  throw new HubosError(
    'PLUGIN_INVALID',
    `plugin "${specifier}" must default-export a plugin or a plugin factory; its default export is ${describeValue(exported)} (it exports: ${names})`,
    { details: { plugin: specifier } },
  );
}

async function locate(specifier: string, baseDir: string): Promise<string> {
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    const file = resolvePath(baseDir, specifier);
    if (!existsSync(file)) {
      throw new HubosError('PLUGIN_NOT_FOUND', `plugin "${specifier}" not found: no file at ${file}`, {
        details: { plugin: specifier },
      });
    }
    return pathToFileURL(file).href;
  }
  // Loaded for a package name only: most configs name none, and it is a tenth of a start.
  const { resolve: resolveModule } = await import('import-meta-resolve');
  try {
    return resolveModule(specifier, pathToFileURL(`${baseDir}/`).href);
  } catch (error) {
    throw new HubosError(
      'PLUGIN_NOT_FOUND',
      `plugin "${specifier}" cannot be resolved from ${baseDir}: install it (npm install ${specifier}) or fix the name (${errorMessage(error).split('\n')[0]})`,
      { cause: error, details: { plugin: specifier } },
    );
  }
}
