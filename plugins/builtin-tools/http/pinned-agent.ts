import type { LookupAddress, LookupOptions } from 'node:dns';
import type { Agent } from 'undici';
import type { PinnedAddress } from './guard.ts';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A connection pool whose DNS lookup answers only from `pins`: each hostname connects to the
 * addresses HostGuard checked, never to a fresh (possibly rebound) DNS answer. A hostname that was
 * not checked cannot be connected to at all. IP literals need no lookup: they were checked as written.
 */
export async function pinnedAgent(
  pins: ReadonlyMap<string, PinnedAddress[]>,
  timeoutMs: number,
): Promise<Agent> {
  // undici loads with the first request, not with every server that registers the tool.
  const { Agent } = await import('undici');
  const lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    const pinned = pins.get(hostname);
    const first = pinned?.[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error(`refusing to connect to unchecked host ${hostname}`);
      error.code = 'ENOTCHECKED';
      callback(error, []);
    } else if (options.all) {
      callback(null, pinned);
    } else {
      callback(null, first.address, first.family);
    }
  };
  return new Agent({
    connect: { lookup, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}
