import type { McpStdioServerConfig } from '../config.ts';

/**
 * What a stdio server's process gets besides the SDK's non-secret basics (PATH, HOME, SHELL, TERM,
 * USER, LOGNAME, which the SDK adds itself): only the variables its config names. A list copies
 * those names from HubOS's environment (absent ones are skipped); an object sets them as given.
 * HubOS's own secrets (API keys) never reach a server that does not name them.
 */
export function childEnv(
  env: McpStdioServerConfig['env'],
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  if (env === undefined) return {};
  if (!Array.isArray(env)) return { ...env };
  const picked: Record<string, string> = {};
  for (const name of env) {
    const value = from[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}
