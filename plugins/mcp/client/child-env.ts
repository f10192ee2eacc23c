import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpStdioServerConfig } from '../config.ts';

/**
 * How a process reaches the network on this machine: the certificate authorities it trusts and the
 * proxy it goes through. A server that calls an API hangs or fails without them where they are
 * needed (a corporate proxy, a TLS-inspecting firewall), so every stdio server gets them.
 */
export const NETWORK_ENV: readonly string[] = [
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_ENV_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'AWS_CA_BUNDLE',
  'GIT_SSL_CAINFO',
  'PIP_CERT',
  'NIX_SSL_CERT_FILE',
  ...['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY'].flatMap((name) => [name, name.toLowerCase()]),
];

/**
 * What a stdio server's process gets besides the SDK's non-secret basics (PATH, HOME, SHELL, TERM,
 * USER, LOGNAME, which the SDK adds itself): the CA and proxy variables HubOS has (NETWORK_ENV),
 * then the variables its config names. A list copies those names from HubOS's environment (absent
 * ones are skipped); an object sets them as given (and wins over a CA or proxy variable of the same
 * name). HubOS's own secrets (API keys) never reach a server that does not name them.
 */
export function childEnv(
  env: McpStdioServerConfig['env'],
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const picked: Record<string, string> = {};
  const copy = (name: string) => {
    const value = from[name];
    if (value !== undefined) picked[name] = value;
  };
  NETWORK_ENV.forEach(copy);
  if (Array.isArray(env)) env.forEach(copy);
  else if (env !== undefined) Object.assign(picked, env);
  return picked;
}

/**
 * The names of HubOS's environment that a stdio server does not get (neither the SDK's basics nor
 * what `childEnv` passes), sorted: what a server that hangs or exits at start may be missing.
 */
export function withheldEnv(
  env: McpStdioServerConfig['env'],
  from: NodeJS.ProcessEnv = process.env,
): string[] {
  const passed = new Set([...Object.keys(getDefaultEnvironment()), ...Object.keys(childEnv(env, from))]);
  return Object.keys(from)
    .filter((name) => from[name] !== undefined && !passed.has(name))
    .sort();
}

/**
 * A hint for a stdio server that did not start: which of HubOS's variables it did not get, and how
 * to pass them (every name, never a value: the one it lacks may be any of them). Empty when
 * nothing was withheld.
 */
export function withheldEnvHint(
  env: McpStdioServerConfig['env'],
  from: NodeJS.ProcessEnv = process.env,
): string {
  const withheld = withheldEnv(env, from);
  if (withheld.length === 0) return '';
  return (
    `. A stdio server gets only PATH, HOME and the like, the CA and proxy variables, and what its "env" names; ` +
    `not passed from HubOS's environment: ${withheld.join(', ')}. If it needs one, name it in the server's "env": ` +
    `env: ['NAME'] copies it from HubOS's environment, env: { NAME: 'value' } sets it`
  );
}
