import { HubosError } from './errors.ts';

/**
 * The error naming what to install when a driver could not load because one of `packages` (optional
 * peer dependencies of hubos, which the app that uses the driver installs) is missing; undefined
 * for any other failure, which the caller throws as it is.
 */
export function missingOptionalPackage(
  error: unknown,
  driver: string,
  packages: readonly string[],
): HubosError | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // Node's message quotes the package: "Cannot find package 'pg' imported from ..." (import),
  // "Cannot find module 'pg'" (require).
  const missing = packages.find((name) => String(message).includes(`'${name}'`));
  if ((code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') || missing === undefined)
    return undefined;
  const needs =
    packages.length === 1
      ? `the package ${missing} (not installed)`
      : `the packages ${packages.join(' and ')} (${missing} is not installed)`;
  return new HubosError(
    'CONFIG_INVALID',
    `${driver} needs ${needs}: run "npm install ${packages.join(' ')}" in the app`,
    { cause: error, details: { install: packages.join(' ') } },
  );
}
