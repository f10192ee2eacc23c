import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { HubosError } from '../errors.ts';
import type { StoreValue } from '../store/store.ts';
import type { Bus, LogEntry } from './bus.ts';
import { RedisChannels } from './redis-channels.ts';
import { connectRedis } from './redis-connect.ts';
import { followStream } from './redis-follow.ts';
import { decodeEntries, type RawEntries } from './redis-stream.ts';
import { RedisTail } from './redis-tail.ts';

export interface RedisBusOptions {
  /** Every key and channel is `<prefix>:<kind>:<name>`, so services can share one Redis. */
  prefix: string;
}

const DEFAULT_MAX_LEN = 10_000;

/** One fixed window: the hit, and the window's ms left (started, with its expiry, by its first hit). */
const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

/**
 * Takes a slot of a semaphore: a sorted set of slot ids scored by their expiry (Redis's clock, so
 * instances' clocks need not agree). Expired slots go first; a slot is added while fewer than the
 * limit are held. The set lives as long as its last slot (not the newest one's: a shorter slot
 * taken after a longer one must not drop it). ARGV: limit, ttl ms, slot id. Returns the slot id or false.
 */
const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return false end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], 0, 0, 'REV', 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return ARGV[3]`;

/**
 * Appends after the stream's last entry, at its position (`<position>-*`, Redis 7): the id the
 * stream last gave, not a clock, so entries appended `at` a position and these stay in one order.
 * A time to live (ARGV[3], ms; empty for none) is set in the same call.
 */
const APPEND_AFTER_LAST_SCRIPT = `
local position = '0'
if redis.call('EXISTS', KEYS[1]) == 1 then
  local info = redis.call('XINFO', 'STREAM', KEYS[1])
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then position = string.match(info[i + 1], '^%d+') end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], position .. '-*', 'e', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return id`;

type WithScripts = Redis & {
  hubosHit(key: string, windowMs: number, amount: number): Promise<[number, number]>;
  hubosAcquire(key: string, limit: number, ttlMs: number, slot: string): Promise<string | null>;
  hubosAppendAfterLast(key: string, maxLen: number, entry: string, ttlMs: number | ''): Promise<string>;
};

/**
 * The bus of instances that share one Redis: pub/sub for messages, streams for logs and a Lua
 * counter for windows. Calls made while Redis is away wait for it to return.
 */
export class RedisBus implements Bus {
  readonly driver = 'redis';
  readonly shared = true;
  readonly #main: WithScripts;
  readonly #prefix: string;
  readonly #channels: RedisChannels;
  /** The one reader of every follow on this instance (one connection, whatever their number). */
  readonly #tail: RedisTail;
  #closing: Promise<void> | undefined;

  /** Connects to `url`; fails with BUS_FAILED within a few seconds when Redis does not answer. */
  static async open(url: string, options: RedisBusOptions): Promise<RedisBus> {
    // Auto-pipelined: the commands of one turn of the event loop (a run's events appended as they
    // come, its end) go in one write and come back in one read, in order.
    const main = await connectRedis(url, options.prefix, { enableAutoPipelining: true });
    return new RedisBus(main, options);
  }

  private constructor(main: Redis, options: RedisBusOptions) {
    main.defineCommand('hubosHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    main.defineCommand('hubosAcquire', { numberOfKeys: 1, lua: ACQUIRE_SCRIPT });
    main.defineCommand('hubosAppendAfterLast', { numberOfKeys: 1, lua: APPEND_AFTER_LAST_SCRIPT });
    this.#main = main as WithScripts;
    this.#prefix = options.prefix;
    this.#channels = new RedisChannels(main);
    this.#tail = new RedisTail(main, options.prefix);
  }

  async publish(channel: string, message: StoreValue): Promise<void> {
    await this.#main.publish(this.#key('msg', channel), JSON.stringify(message));
  }

  async subscribe(channel: string, handler: (message: StoreValue) => void): Promise<() => Promise<void>> {
    this.#assertOpen();
    return this.#channels.subscribe(this.#key('msg', channel), handler);
  }

  async append(
    log: string,
    entry: StoreValue,
    options: { maxLen?: number; at?: number; ttlMs?: number } = {},
  ): Promise<string> {
    const maxLen = Math.max(0, Math.floor(options.maxLen ?? DEFAULT_MAX_LEN));
    const key = this.#key('log', log);
    const json = JSON.stringify(entry);
    const ttlMs = options.ttlMs === undefined ? undefined : Math.max(0, Math.round(options.ttlMs));
    if (options.at === undefined) return this.#main.hubosAppendAfterLast(key, maxLen, json, ttlMs ?? '');
    if (!Number.isSafeInteger(options.at) || options.at < 1)
      throw new HubosError('BUS_FAILED', `log ${log}: position ${options.at} is not a positive integer`);
    // `~` trims whole stream nodes: cheap, and it keeps at least maxLen entries.
    const added = this.#main.xadd(key, 'MAXLEN', '~', maxLen, `${options.at}-0`, 'e', json);
    if (ttlMs === undefined) return (await added)!;
    const [id] = await Promise.all([added, this.#main.pexpire(key, ttlMs)]);
    return id!;
  }

  async last(log: string): Promise<LogEntry | undefined> {
    const raw = (await this.#main.xrevrange(this.#key('log', log), '+', '-', 'COUNT', 1)) as RawEntries;
    const [read] = decodeEntries(raw);
    return read?.entry === undefined ? undefined : { id: read.id, entry: read.entry };
  }

  async *follow(log: string, after: string | undefined, signal: AbortSignal): AsyncIterable<LogEntry> {
    this.#assertOpen();
    if (signal.aborted) return;
    try {
      yield* followStream(this.#main, this.#tail, this.#key('log', log), after, signal);
    } catch (error) {
      if (!signal.aborted && !this.#closing) throw error;
    }
  }

  async expire(log: string, ttlMs: number): Promise<void> {
    await this.#main.pexpire(this.#key('log', log), Math.max(0, Math.round(ttlMs)));
  }

  async hit(key: string, windowMs: number, amount = 1): Promise<{ count: number; resetMs: number }> {
    const [count, resetMs] = await this.#main.hubosHit(
      this.#key('hit', key),
      Math.max(1, Math.round(windowMs)),
      Math.max(0, Math.round(amount)),
    );
    return { count, resetMs };
  }

  async acquire(key: string, limit: number, ttlMs: number): Promise<string | undefined> {
    const slot = randomUUID();
    const taken = await this.#main.hubosAcquire(
      this.#key('sem', key),
      Math.max(1, Math.floor(limit)),
      Math.max(1, Math.round(ttlMs)),
      slot,
    );
    return taken ?? undefined;
  }

  async release(key: string, slot: string): Promise<void> {
    await this.#main.zrem(this.#key('sem', key), slot);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#channels.close();
      this.#tail.close();
      this.#main.disconnect();
    })();
    return this.#closing;
  }

  #key(kind: 'msg' | 'log' | 'hit' | 'sem', name: string): string {
    return `${this.#prefix}:${kind}:${name}`;
  }

  /** A closed bus opens no new connection (a subscriber, reader or worker would outlive it). */
  #assertOpen(): void {
    if (this.#closing) throw new HubosError('BUS_FAILED', 'the Redis bus is closed');
  }
}
