import dns, { type LookupAddress } from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';

/**
 * Makes this process's DNS lookups (`dns.lookup` and `dns.promises.lookup`, which fetch, net and
 * HubOS's resolver use) answer `answer(hostname, n)` for the names it covers, `n` counting that
 * name's lookups from 0; other names go to the real lookups. Returns a function that restores them.
 */
export function answerDns(answer: (hostname: string, n: number) => string | undefined): {
  lookups: Map<string, number>;
  restore(): void;
} {
  const lookups = new Map<string, number>();
  const realLookup = dns.lookup;
  const realPromise = dns.promises.lookup;
  const answerFor = (hostname: string): LookupAddress | undefined => {
    const n = lookups.get(hostname) ?? 0;
    const address = answer(hostname, n);
    if (address === undefined) return undefined;
    lookups.set(hostname, n + 1);
    return { address, family: address.includes(':') ? 6 : 4 };
  };
  const reply = (options: unknown, found: LookupAddress) =>
    typeof options === 'object' && options !== null && (options as { all?: boolean }).all ? [found] : found;
  // biome-ignore lint/suspicious/noExplicitAny: dns.lookup's overloads are stood in for as a whole.
  (dns as any).lookup = (hostname: string, options: unknown, callback?: (...args: unknown[]) => void) => {
    const found = answerFor(hostname);
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    // biome-ignore lint/suspicious/noExplicitAny: passed through as given.
    if (!found) return (realLookup as any)(hostname, options, callback);
    const answered = reply(options, found);
    process.nextTick(() =>
      Array.isArray(answered) ? done(null, answered) : done(null, answered.address, answered.family),
    );
  };
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  (dns.promises as any).lookup = async (hostname: string, options?: unknown) => {
    const found = answerFor(hostname);
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    return found ? reply(options, found) : (realPromise as any)(hostname, options);
  };
  syncBuiltinESMExports();
  return {
    lookups,
    restore() {
      dns.lookup = realLookup;
      dns.promises.lookup = realPromise;
      syncBuiltinESMExports();
    },
  };
}
