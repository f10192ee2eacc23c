import { dirname } from 'node:path';
import { settleAppModules } from '../core/app-module-format.ts';
import { createConsoleLogger, createKernel, type Kernel, loadConfigFile } from '../core/index.ts';
import { resolveConfigExport } from '../core/internal.ts';
import { defaultPlugins } from '../plugins/defaults.ts';
import type { CliIO } from './io.ts';
import { registerSelfResolve, settleSelfResolve } from './self-resolve.ts';

export interface KernelFlags {
  config?: string;
  mode?: string;
}

/**
 * Finds the config (or says the built-in defaults are in use), then boots a kernel with the
 * built-in plugins the config turns on, followed by the config's own plugins.
 */
export async function loadKernel(command: string, flags: KernelFlags, io: CliIO): Promise<Kernel> {
  registerSelfResolve();
  const found = await loadConfigFile({ cwd: io.cwd, ...(flags.config ? { configFile: flags.config } : {}) });
  if (!found) {
    io.stderr.write(
      'No agent.config.{ts,mts,cts,js,mjs,cjs} found here or in a parent folder: using the built-in defaults.\n',
    );
  }
  const mode = flags.mode ?? process.env.NODE_ENV ?? 'development';
  const config = found ? await resolveConfigExport(found.exported, { mode, command }, found.file) : {};
  const kernel = createKernel({
    config,
    ...(found ? { configFile: found.file } : {}),
    cwd: io.cwd,
    mode,
    command,
    plugins: defaultPlugins(config),
    logger: createConsoleLogger(),
  });
  await kernel.boot();
  // The config and its plugins have loaded: module hooks that later imports do not need go.
  settleSelfResolve(found ? dirname(found.file) : io.cwd);
  settleAppModules();
  return kernel;
}
