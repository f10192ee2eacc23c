import { HubosError } from '../errors.ts';
import { missingOptionalPackage } from '../optional-packages.ts';
import type { Bus } from './bus.ts';
import { LocalBus } from './local.ts';

export interface BusConfig {
  /**
   * `local` (default): one instance, everything in its process. `redis`: instances on one Redis are
   * one service (a run's events, cancels, approvals, the run queue and rate limits reach them all).
   * HUBOS_REDIS_URL selects `redis` when no driver is set.
   */
  driver?: 'local' | 'redis';
  /** `redis://host:port/db` (default HUBOS_REDIS_URL). */
  url?: string;
  /** Prefix of every Redis key, so several services can share one Redis (default `hubos`). */
  prefix?: string;
  /**
   * How long an instance that stops answering keeps its runs (ms, default 15 s): after that,
   * another instance takes them over and resumes them (or ends them `interrupted`, with the reason).
   */
  leaseMs?: number;
}

export const BUS_CONFIG_SCHEMA = {
  type: 'object',
  description:
    'How instances of one service share events, cancels, approvals, the run queue and rate limits.',
  properties: {
    driver: { type: 'string', enum: ['local', 'redis'] },
    url: { type: 'string', pattern: '^rediss?://' },
    prefix: { type: 'string', pattern: '^[A-Za-z0-9:_-]{1,64}$' },
    leaseMs: { type: 'integer', minimum: 1000, maximum: 600000 },
  },
  additionalProperties: false,
} as const;

export const DEFAULT_LEASE_MS = 15_000;

/** The packages only the Redis bus uses: optional peer dependencies of hubos, which an app installs. */
const REDIS_BUS_PACKAGES = ['ioredis'] as const;

/** Opens the configured bus: local unless `redis` is asked for (or HUBOS_REDIS_URL is set). */
export async function openBus(config: BusConfig = {}, env: NodeJS.ProcessEnv = process.env): Promise<Bus> {
  const url = config.url ?? env.HUBOS_REDIS_URL;
  const driver = config.driver ?? (url ? 'redis' : 'local');
  if (driver === 'local') return new LocalBus();
  if (!url)
    throw new HubosError(
      'CONFIG_INVALID',
      'bus.driver is "redis" but no URL is set: add bus.url (e.g. "redis://127.0.0.1:6379") or HUBOS_REDIS_URL',
    );
  // Loaded only when asked for: a single instance never pays for the Redis client, nor installs it.
  const { RedisBus } = await import('./redis.ts').catch((error: unknown) => {
    throw missingOptionalPackage(error, 'the Redis bus', REDIS_BUS_PACKAGES) ?? error;
  });
  return RedisBus.open(url, { prefix: config.prefix ?? 'hubos' });
}
