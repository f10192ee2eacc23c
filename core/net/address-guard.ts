import dns from 'node:dns';
import { isIP } from 'node:net';
import { errorMessage } from '../errors.ts';
import { AllowList, normalizeHost } from './allow-list.ts';
import { classifyAddress } from './classify-address.ts';

/** A DNS lookup: every address a hostname resolves to (tests inject one; the default is `dns.lookup`). */
export type DnsResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** A checked address a connection may go to. */
export interface PinnedAddress {
  /** The IP, without brackets or a zone. */
  address: string;
  /** Its family, from the address itself. */
  family: 4 | 6;
}

/** What an AddressGuard lets through besides public addresses, and how it resolves names. */
export interface AddressGuardOptions {
  /**
   * Hostnames (`*.corp.example` for subdomains), IPs and CIDR ranges let through though internal:
   * a listed hostname allows whatever it resolves to. Or an AllowList made beforehand.
   */
  allowHosts?: readonly string[] | AllowList;
  /** The config key that lists them, named in refusals (`http.allowHosts`); default `allowHosts`. */
  setting?: string;
  /** The DNS lookup used for the check, and so for the connection. Default: `dns.lookup`. */
  resolver?: DnsResolver;
}

/** A host an AddressGuard refused: internal (`blocked`) or without an address (`unresolved`). */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  /** As a socket error's code, so code that reads `code` sees a refusal, not a network failure. */
  readonly code = 'EADDRREFUSED';
  /** `blocked`: the host is (or resolves to) an internal address; `unresolved`: it has no address. */
  readonly reason: 'blocked' | 'unresolved';
  /** The host refused: the name, or the IP as written. */
  readonly hostname: string;
  constructor(reason: 'blocked' | 'unresolved', hostname: string, message: string) {
    super(message);
    this.reason = reason;
    this.hostname = hostname;
  }
}

// Names that reach internal services whatever DNS says (RFC 6761 localhost, GCP metadata).
const BLOCKED_NAMES: readonly [test: (name: string) => boolean, kind: string][] = [
  [(name) => name === 'localhost' || name.endsWith('.localhost'), 'a loopback address'],
  [(name) => name === 'metadata.google.internal' || name === 'metadata.goog', 'a cloud metadata address'],
];

// Read at each call, not bound at import: a process that swaps dns.lookup (a test, a DNS cache) is heard.
const systemResolver: DnsResolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, order: 'verbatim' });

/**
 * The policy for every outbound request HubOS makes where a model, a remote server or a page
 * chooses the address: loopback, private, link-local, unique-local, multicast, reserved and cloud
 * metadata addresses are refused in every spelling, unless allowed. `addresses` resolves a host
 * once and checks every answer; `guardedAgent` and `guardedFetch` connect to exactly those
 * addresses, so DNS cannot answer the check one thing and the connection another.
 */
export class AddressGuard {
  readonly #allow: AllowList;
  readonly #setting: string;
  readonly #resolve: DnsResolver;

  constructor(options: AddressGuardOptions = {}) {
    this.#setting = options.setting ?? 'allowHosts';
    this.#allow =
      options.allowHosts instanceof AllowList
        ? options.allowHosts
        : new AllowList(options.allowHosts, this.#setting);
    this.#resolve = options.resolver ?? systemResolver;
  }

  /**
   * The addresses `host` (a name or an IP, IPv6 with or without brackets) may be connected to:
   * all of its answers, each checked, so a connection can still fall back between IPv6 and IPv4.
   * Throws AddressRefusedError when it is internal or does not resolve.
   */
  async addresses(host: string): Promise<PinnedAddress[]> {
    // WHATWG URL parsing already turned 127.1, 2130706433, 0x7f.1 and [::ffff:127.0.0.1] into canonical IPs.
    const bare = host.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
    const family = isIP(bare);
    if (family !== 0) {
      if (!this.#allow.hasAddress(bare)) this.#refuseIfInternal(bare, bare);
      return [{ address: bare, family: family as 4 | 6 }];
    }
    const name = normalizeHost(bare);
    const allowedName = this.#allow.hasName(name);
    if (!allowedName) {
      for (const [test, kind] of BLOCKED_NAMES)
        if (test(name)) throw this.#blocked(name, `${name} is ${kind}`, name);
    }
    const addresses = await this.#lookup(name);
    for (const { address } of allowedName ? [] : addresses) {
      if (!this.#allow.hasAddress(address)) this.#refuseIfInternal(address, name, name);
    }
    return addresses;
  }

  async #lookup(name: string): Promise<PinnedAddress[]> {
    let answers: { address: string; family: number }[];
    try {
      answers = await this.#resolve(name);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new AddressRefusedError(
        'unresolved',
        name,
        `could not resolve ${name}: ${typeof code === 'string' ? code : errorMessage(error)}`,
      );
    }
    // The family comes from the address itself, not from what the resolver claims; zone ids are dropped.
    const addresses = answers.map(({ address }) => address.replace(/%.*$/, ''));
    const valid = addresses.filter((address) => isIP(address) !== 0);
    if (valid.length === 0)
      throw new AddressRefusedError('unresolved', name, `could not resolve ${name}: no address`);
    if (valid.length < addresses.length)
      throw new AddressRefusedError('unresolved', name, `${name} resolved to an invalid address`);
    return valid.map((address) => ({ address, family: isIP(address) as 4 | 6 }));
  }

  #refuseIfInternal(address: string, hint: string, name?: string): void {
    const verdict = classifyAddress(address);
    if (!verdict) return;
    const what = verdict.embedded ? `${address} (IPv4 ${verdict.embedded})` : address;
    const subject = name
      ? `${name} resolves to ${what}, which is ${verdict.kind}`
      : `${what} is ${verdict.kind}`;
    throw this.#blocked(name ?? address, subject, hint === address ? 'it' : hint);
  }

  #blocked(hostname: string, subject: string, hint: string): AddressRefusedError {
    return new AddressRefusedError(
      'blocked',
      hostname,
      `blocked: ${subject} (add ${hint} to ${this.#setting} to allow it)`,
    );
  }
}
