import type { Redis } from 'ioredis';
import { HubosError } from '../errors.ts';
import type { StoreValue } from '../store/store.ts';
import type { Bus, Job, LogEntry, WorkOptions } from './bus.ts';
import { RedisChannels } from './redis-channels.ts';
import { connectRedis, quiet } from './redis-connect.ts';
import { readStream } from './redis-follow.ts';
import { RedisJobs } from './redis-jobs.ts';

export interface RedisBusOptions {
  /** Every key and channel is `<prefix>:<kind>:<name>`, so services can share one Redis. */
  prefix: string;
  /** How long a dead instance's job stays locked before another instance gets it (ms). */
  leaseMs: number;
}

const DEFAULT_MAX_LEN = 10_000;

/** One fixed window: the hit, and the window's ms left (started, with its expiry, by its first hit). */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

type WithHit = Redis & { hubosHit(key: string, windowMs: number): Promise<[number, number]> };

/**
 * The bus of instances that share one Redis: pub/sub for messages, streams for logs, a Lua counter
 * for windows and BullMQ for the work queue. Calls made while Redis is away wait for it to return.
 */
export class RedisBus implements Bus {
  readonly driver = 'redis';
  readonly shared = true;
  readonly #main: WithHit;
  readonly #prefix: string;
  readonly #channels: RedisChannels;
  readonly #jobs: RedisJobs;
  /** The connections of running follows, each held by its blocking XREAD. */
  readonly #readers = new Set<Redis>();
  #closing: Promise<void> | undefined;

  /** Connects to `url`; fails with BUS_FAILED within a few seconds when Redis does not answer. */
  static async open(url: string, options: RedisBusOptions): Promise<RedisBus> {
    const main = await connectRedis(url, options.prefix);
    return new RedisBus(main, url, options);
  }

  private constructor(main: Redis, url: string, options: RedisBusOptions) {
    main.defineCommand('hubosHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.#main = main as WithHit;
    this.#prefix = options.prefix;
    this.#channels = new RedisChannels(main);
    this.#jobs = new RedisJobs({ url, prefix: `${options.prefix}:job`, leaseMs: options.leaseMs });
  }

  async publish(channel: string, message: StoreValue): Promise<void> {
    await this.#main.publish(this.#key('msg', channel), JSON.stringify(message));
  }

  async subscribe(channel: string, handler: (message: StoreValue) => void): Promise<() => Promise<void>> {
    this.#assertOpen();
    return this.#channels.subscribe(this.#key('msg', channel), handler);
  }

  async append(log: string, entry: StoreValue, options: { maxLen?: number } = {}): Promise<string> {
    const maxLen = Math.max(0, Math.floor(options.maxLen ?? DEFAULT_MAX_LEN));
    // `~` trims whole stream nodes: cheap, and it keeps at least maxLen entries.
    const id = await this.#main.xadd(
      this.#key('log', log),
      'MAXLEN',
      '~',
      maxLen,
      '*',
      'e',
      JSON.stringify(entry),
    );
    return id!;
  }

  async *follow(log: string, after: string | undefined, signal: AbortSignal): AsyncIterable<LogEntry> {
    this.#assertOpen();
    if (signal.aborted) return;
    const reader = quiet(this.#main.duplicate());
    this.#readers.add(reader);
    // Disconnecting ends the blocked XREAD at once, rather than at the end of its block.
    const stop = () => reader.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    try {
      yield* readStream(reader, this.#key('log', log), after, signal);
    } catch (error) {
      if (!signal.aborted && !this.#closing) throw error;
    } finally {
      signal.removeEventListener('abort', stop);
      this.#readers.delete(reader);
      reader.disconnect();
    }
  }

  async last(log: string): Promise<LogEntry | undefined> {
    const [newest] = await this.#main.xrevrange(this.#key('log', log), '+', '-', 'COUNT', 1);
    if (!newest) return undefined;
    const [id, fields] = newest;
    const text = fields[fields.indexOf('e') + 1];
    return text === undefined ? undefined : { id, entry: JSON.parse(text) };
  }

  async expire(log: string, ttlMs: number): Promise<void> {
    await this.#main.pexpire(this.#key('log', log), Math.max(0, Math.round(ttlMs)));
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    const [count, resetMs] = await this.#main.hubosHit(
      this.#key('hit', key),
      Math.max(1, Math.round(windowMs)),
    );
    return { count, resetMs };
  }

  async enqueue(queue: string, job: Job): Promise<void> {
    this.#assertOpen();
    await this.#jobs.enqueue(queue, job);
  }

  async work(
    queue: string,
    handler: (job: Job) => Promise<void>,
    options: WorkOptions,
  ): Promise<() => Promise<void>> {
    this.#assertOpen();
    return this.#jobs.work(queue, handler, options);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#jobs.close();
      this.#channels.close();
      for (const reader of this.#readers) reader.disconnect();
      this.#main.disconnect();
    })();
    return this.#closing;
  }

  #key(kind: 'msg' | 'log' | 'hit', name: string): string {
    return `${this.#prefix}:${kind}:${name}`;
  }

  /** A closed bus opens no new connection (a subscriber, reader or worker would outlive it). */
  #assertOpen(): void {
    if (this.#closing) throw new HubosError('BUS_FAILED', 'the Redis bus is closed');
  }
}
