import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { errorMessage, HubosError } from '../../../core/index.ts';
import { abortable } from '../../../core/internal.ts';
import { classifyAddress } from './address.ts';
import { type AllowList, normalizeHost } from './allow-list.ts';
import type { DnsResolver } from './options.ts';

/** A checked address a request may connect to. */
export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

// Names that reach internal services whatever DNS says (RFC 6761 localhost, GCP metadata).
const BLOCKED_NAMES: readonly [test: (name: string) => boolean, kind: string][] = [
  [(name) => name === 'localhost' || name.endsWith('.localhost'), 'a loopback address'],
  [(name) => name === 'metadata.google.internal' || name === 'metadata.goog', 'a cloud metadata address'],
];

export const systemResolver: DnsResolver = (hostname) => lookup(hostname, { all: true, order: 'verbatim' });

/**
 * Decides whether a URL may be fetched and which address to connect to. The check is made on the
 * resolved address, and the caller connects to exactly that address, so DNS cannot change the
 * answer between the check and the connection.
 */
export class HostGuard {
  readonly #allow: AllowList;
  readonly #resolve: DnsResolver;

  constructor(allow: AllowList, resolve: DnsResolver) {
    this.#allow = allow;
    this.#resolve = resolve;
  }

  /**
   * The addresses `url` may connect to (all of its host's, every one checked, so the connection can
   * still fall back between IPv6 and IPv4); throws a model-readable HubosError when it is refused.
   */
  async check(url: URL, signal: AbortSignal): Promise<PinnedAddress[]> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw refused(`only http and https URLs are allowed, not ${url.protocol.slice(0, -1)} (${url.href})`);
    }
    if (url.username || url.password) {
      throw refused('credentials in the URL are not supported: send an authorization header instead');
    }
    // WHATWG parsing already turned 127.1, 2130706433, 0x7f.1 and [::ffff:127.0.0.1] into canonical IPs.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const family = isIP(host);
    if (family !== 0) {
      if (!this.#allow.hasAddress(host)) blockIfInternal(host, host);
      return [{ address: host, family: family as 4 | 6 }];
    }

    const name = normalizeHost(host);
    const allowedName = this.#allow.hasName(name);
    if (!allowedName) {
      for (const [test, kind] of BLOCKED_NAMES) if (test(name)) throw blocked(`${name} is ${kind}`, name);
    }
    const addresses = await this.#lookup(host, signal);
    for (const { address } of allowedName ? [] : addresses) {
      if (!this.#allow.hasAddress(address)) blockIfInternal(address, name, name);
    }
    return addresses;
  }

  async #lookup(host: string, signal: AbortSignal): Promise<PinnedAddress[]> {
    let answers: { address: string; family: number }[];
    try {
      answers = await abortable(this.#resolve(host), signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const code = (error as { code?: unknown }).code;
      throw refused(`could not resolve ${host}: ${typeof code === 'string' ? code : errorMessage(error)}`);
    }
    // The family comes from the address itself, not from what the resolver claims; zone ids are dropped.
    const addresses = answers.map(({ address }) => address.replace(/%.*$/, ''));
    const valid = addresses.filter((address) => isIP(address) !== 0);
    if (valid.length === 0) throw refused(`could not resolve ${host}: no address`);
    if (valid.length < addresses.length) throw refused(`${host} resolved to an invalid address`);
    return valid.map((address) => ({ address, family: isIP(address) as 4 | 6 }));
  }
}

function blockIfInternal(address: string, hint: string, name?: string): void {
  const verdict = classifyAddress(address);
  if (!verdict) return;
  const what = verdict.embedded ? `${address} (IPv4 ${verdict.embedded})` : address;
  const subject = name
    ? `${name} resolves to ${what}, which is ${verdict.kind}`
    : `${what} is ${verdict.kind}`;
  throw blocked(subject, hint === address ? 'it' : hint);
}

function blocked(subject: string, hint: string): HubosError {
  return new HubosError('TOOL_FAILED', `blocked: ${subject} (add ${hint} to http.allowHosts to allow it)`, {
    details: { reason: 'blocked' },
  });
}

function refused(message: string): HubosError {
  return new HubosError('TOOL_FAILED', message);
}
