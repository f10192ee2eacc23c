import { resolve } from 'node:path';
import { MemoryStore } from './memory.ts';
import { SqliteStore } from './sqlite.ts';
import type { Store } from './store.ts';

export interface StoreConfig {
  /** `sqlite` (default): a file that survives restarts; `memory`: gone with the process. */
  driver?: 'sqlite' | 'memory';
  /** The SQLite file, relative to the config file's folder (default `.hubos/hubos.db`). */
  path?: string;
  busyTimeoutMs?: number;
}

export const STORE_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    driver: { type: 'string', enum: ['sqlite', 'memory'], default: 'sqlite' },
    path: { type: 'string', minLength: 1, default: '.hubos/hubos.db' },
    busyTimeoutMs: { type: 'integer', minimum: 0, default: 5000 },
  },
  additionalProperties: false,
} as const;

/** Opens the configured store; a corrupt or unwritable database fails here, at startup. */
export function openStore(config: StoreConfig = {}, baseDir: string): Store {
  if (config.driver === 'memory') return new MemoryStore();
  const path = config.path === ':memory:' ? ':memory:' : resolve(baseDir, config.path ?? '.hubos/hubos.db');
  return new SqliteStore(path, { busyTimeoutMs: config.busyTimeoutMs ?? 5_000 });
}
