import { resolve } from 'node:path';
import { HubosError } from '../errors.ts';
import { missingOptionalPackage } from '../optional-packages.ts';
import { MemoryStore } from './memory.ts';
import { SqliteStore } from './sqlite.ts';
import type { Store } from './store.ts';

export interface StoreConfig {
  /**
   * `sqlite` (default): a file that survives restarts; `postgres`: a PostgreSQL database several
   * instances share (HUBOS_DATABASE_URL selects it when no driver is set); `memory`: gone with the process.
   */
  driver?: 'sqlite' | 'postgres' | 'memory';
  /** The SQLite file, relative to the config file's folder (default `.hubos/hubos.db`). */
  path?: string;
  /** `postgres://user:password@host:5432/database` (default HUBOS_DATABASE_URL). */
  url?: string;
  /** The PostgreSQL schema HubOS's tables live in (default `public`), so services can share a database. */
  schema?: string;
  /** Connections each instance keeps open to PostgreSQL (default 10). */
  poolSize?: number;
  busyTimeoutMs?: number;
}

export const STORE_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    driver: { type: 'string', enum: ['sqlite', 'postgres', 'memory'] },
    path: { type: 'string', minLength: 1, default: '.hubos/hubos.db' },
    url: { type: 'string', pattern: '^postgres(ql)?://' },
    schema: { type: 'string', pattern: '^[a-z_][a-z0-9_]{0,62}$' },
    poolSize: { type: 'integer', minimum: 1, maximum: 1000 },
    busyTimeoutMs: { type: 'integer', minimum: 0, default: 5000 },
  },
  additionalProperties: false,
} as const;

/** The PostgreSQL client: an optional peer dependency of hubos, which an app on PostgreSQL installs. */
const POSTGRES_STORE_PACKAGES = ['pg'] as const;

/** Opens the configured store; a corrupt, unwritable or unreachable database fails here, at startup. */
export async function openStore(
  config: StoreConfig = {},
  baseDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Store> {
  const url = config.url ?? env.HUBOS_DATABASE_URL;
  const driver = config.driver ?? (url ? 'postgres' : 'sqlite');
  if (driver === 'memory') return new MemoryStore();
  if (driver === 'postgres') {
    if (!url)
      throw new HubosError(
        'CONFIG_INVALID',
        'store.driver is "postgres" but no URL is set: add store.url (e.g. "postgres://user@127.0.0.1:5432/hubos") or HUBOS_DATABASE_URL',
      );
    // Loaded only when asked for: the embedded default never pays for the PostgreSQL client, nor installs it.
    const { PostgresStore } = await import('./postgres.ts').catch((error: unknown) => {
      throw missingOptionalPackage(error, 'the PostgreSQL store', POSTGRES_STORE_PACKAGES) ?? error;
    });
    return PostgresStore.open(url, {
      poolSize: config.poolSize ?? 10,
      schema: config.schema ?? 'public',
      ...(config.busyTimeoutMs !== undefined ? { lockTimeoutMs: config.busyTimeoutMs } : {}),
    });
  }
  const path = config.path === ':memory:' ? ':memory:' : resolve(baseDir, config.path ?? '.hubos/hubos.db');
  return new SqliteStore(path, { busyTimeoutMs: config.busyTimeoutMs ?? 5_000 });
}
