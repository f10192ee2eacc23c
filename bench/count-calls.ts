/**
 * Loaded with `--import` into a `hubos serve` that run-cost.bench.ts starts: counts the statements
 * the process sends to PostgreSQL (by text; `[named]` for a named, prepared one), the commands it
 * sends to Redis and its socket writes to Redis, and writes them as JSON to HUBOS_COUNT_FILE at
 * each SIGUSR2. Measuring only: it wraps pg's Client.query and ioredis's sendCommand.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';

const require = createRequire(import.meta.url);
const pg = require('pg') as typeof import('pg');
const { Redis } = require('ioredis') as typeof import('ioredis');
const REDIS_PORT = Number(process.env.HUBOS_COUNT_REDIS_PORT ?? 6379);

const counts = { pg: {} as Record<string, number>, redis: {} as Record<string, number>, redisWrites: 0 };
const add = (to: Record<string, number>, key: string) => {
  to[key] = (to[key] ?? 0) + 1;
};

const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  const config = args[0] as string | { text?: string; name?: string };
  const text = typeof config === 'string' ? config : (config.text ?? '');
  const named = typeof config === 'object' && config.name ? '[named] ' : '';
  // Without the schema, so runs of any schema add up.
  add(
    counts.pg,
    named +
      text
        .replace(/\s+/g, ' ')
        .replace(/"[^"]*"\./g, '')
        .slice(0, 60),
  );
  return query.apply(this, args);
} as never;

const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: InstanceType<typeof Redis>, command, stream) {
  add(counts.redis, command.name);
  return sendCommand.call(this, command, stream);
};

const write = net.Socket.prototype.write as (...args: unknown[]) => boolean;
net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
  if (this.remotePort === REDIS_PORT) counts.redisWrites++;
  return write.apply(this, args);
} as never;

process.on('SIGUSR2', () => writeFileSync(process.env.HUBOS_COUNT_FILE!, JSON.stringify(counts)));
