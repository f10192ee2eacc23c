import { Redis, type RedisOptions } from 'ioredis';
import { errorMessage, HubosError } from '../errors.ts';

/** How long opening waits for Redis: a bus that cannot start says so at startup, not never. */
const OPEN_TIMEOUT_MS = 3_000;

/**
 * Options of every connection of a bus. Once open, ioredis reconnects forever (backing off up to
 * 5 s) and commands wait in its offline queue instead of failing during an outage.
 */
export function connectionOptions(name: string): RedisOptions {
  return {
    // Connected by the first command: open() bounds that wait, a duplicate connects when used.
    lazyConnect: true,
    // Not the default 20 retries: a command waits for the reconnect however long it takes.
    maxRetriesPerRequest: null,
    // Shows whose connections they are in CLIENT LIST (a name cannot hold spaces).
    connectionName: name.replace(/[^\w:.-]/g, '_'),
  };
}

/**
 * Keeps a connection's errors from crashing the process (an EventEmitter throws an unheard
 * 'error'): ioredis reconnects by itself and waiting commands go through once it has.
 */
export function quiet(client: Redis): Redis {
  client.on('error', () => undefined);
  return client;
}

/** Connects to `url` and waits for its PONG; fails with BUS_FAILED within a few seconds. */
export async function connectRedis(
  url: string,
  name: string,
  more: Partial<RedisOptions> = {},
): Promise<Redis> {
  let client: Redis;
  try {
    client = quiet(new Redis(url, { ...connectionOptions(name), ...more }));
  } catch (error) {
    throw busFailed(url, error);
  }
  let fail: (error: unknown) => void = () => undefined;
  const onError = (error: unknown) => fail(error);
  // The first connection error fails at once: a refused port need not wait for the timeout.
  client.on('error', onError);
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      fail = reject;
      timer = setTimeout(() => reject(new Error(`no answer within ${OPEN_TIMEOUT_MS} ms`)), OPEN_TIMEOUT_MS);
      client.ping().then(() => resolve(), reject);
    });
  } catch (error) {
    client.disconnect();
    throw busFailed(url, error);
  } finally {
    clearTimeout(timer);
    client.off('error', onError);
  }
  return client;
}

function busFailed(url: string, error: unknown): HubosError {
  let reason = errorMessage(error);
  for (const secret of secretsOf(url)) reason = reason.replaceAll(secret, '***');
  return new HubosError(
    'BUS_FAILED',
    `cannot use Redis at ${redactUrl(url)} (${reason}): check that Redis runs there and that bus.url ` +
      '(or HUBOS_REDIS_URL) holds its redis:// URL with the right password and database',
  );
}

/** `url` without its password, fit for a message or a log. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return 'the bus URL (not a valid URL)';
  }
}

function secretsOf(url: string): string[] {
  try {
    const parsed = new URL(url);
    const raw = [parsed.password, parsed.searchParams.get('password') ?? ''];
    return [...raw, ...raw.map(decode)].filter((secret) => secret.length > 0);
  } catch {
    return [];
  }
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
