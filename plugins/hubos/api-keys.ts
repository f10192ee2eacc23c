import { HubosError, keyPrincipal, type Principal } from '../../core/index.ts';
import type { ApiKeyEntry } from './options.ts';

/** A key the server accepts and the principal it stands for. */
export interface AcceptedKey {
  /** The secret a client sends as `Authorization: Bearer <key>`. */
  key: string;
  /** Who the key stands for. */
  principal: Principal;
}

const MIN_KEY_LENGTH = 16;
const RESERVED_IDS = new Set(['local', 'anonymous']);

/**
 * The configured keys (`server.apiKeys`, then HUBOS_API_KEYS) as principals. Refuses what would blur
 * identities or weaken them: a short key (a digest of it could be reversed by guessing), a key listed
 * twice, two keys with one id, an id of the server's own (`local`, `anonymous`, `key:…`).
 */
export function resolveApiKeys(
  configured: readonly (string | ApiKeyEntry)[],
  env: string | undefined,
): AcceptedKey[] {
  const fromEnv = (env ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  const entries = [...configured, ...fromEnv].map((entry) =>
    typeof entry === 'string' ? { key: entry } : entry,
  );
  const keys = new Set<string>();
  const ids = new Set<string>();
  return entries.map((entry, index) => {
    const where = index < configured.length ? `server.apiKeys[${index}]` : 'HUBOS_API_KEYS';
    if (typeof entry.key !== 'string' || entry.key.length < MIN_KEY_LENGTH)
      throw invalid(
        `${where}: an API key must be at least ${MIN_KEY_LENGTH} characters (make one with "openssl rand -hex 24")`,
      );
    if (keys.has(entry.key)) throw invalid(`${where}: this API key is listed twice; list each key once`);
    const id = 'id' in entry ? entry.id : undefined;
    if (id !== undefined && (RESERVED_IDS.has(id) || id.startsWith('key:')))
      throw invalid(`${where}: the id "${id}" is the server's own; choose another name`);
    const principal = keyPrincipal(entry.key, { id, admin: 'admin' in entry && entry.admin === true });
    if (ids.has(principal.id))
      throw invalid(`${where}: two API keys have the id "${principal.id}"; give each key its own id`);
    keys.add(entry.key);
    ids.add(principal.id);
    return { key: entry.key, principal };
  });
}

function invalid(message: string): HubosError {
  return new HubosError('CONFIG_INVALID', message, { details: { key: 'server.apiKeys' } });
}
