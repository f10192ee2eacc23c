import { BlockList, isIP } from 'node:net';
import { HubosError } from '../errors.ts';

/**
 * Hosts an AddressGuard lets through though they are internal: hostnames (`*.corp.example` for
 * subdomains), IPs and CIDR ranges. `setting` names the config key in errors.
 */
export class AllowList {
  readonly #names = new Set<string>();
  readonly #suffixes: string[] = [];
  readonly #ips = new BlockList();

  constructor(entries: readonly string[] = [], setting = 'allowHosts') {
    for (const entry of entries) this.#add(entry, setting);
  }

  /** True when the hostname itself was listed (then every address it resolves to is allowed). */
  hasName(name: string): boolean {
    const host = normalizeHost(name);
    return this.#names.has(host) || this.#suffixes.some((suffix) => host.endsWith(suffix));
  }

  /** True when the address was listed or falls in a listed range. */
  hasAddress(ip: string): boolean {
    const family = isIP(ip);
    return family !== 0 && this.#ips.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  }

  #add(entry: string, setting: string): void {
    const text = normalizeHost(entry);
    const slash = text.indexOf('/');
    if (slash >= 0) {
      const network = text.slice(0, slash).replace(/^\[|\]$/g, '');
      const prefix = Number(text.slice(slash + 1));
      const family = isIP(network);
      if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
        throw new HubosError('CONFIG_INVALID', `${setting}: "${entry}" is not a valid CIDR range`);
      }
      this.#ips.addSubnet(network, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (isIP(text)) {
      this.#ips.addAddress(text, isIP(text) === 4 ? 'ipv4' : 'ipv6');
    } else if (text.startsWith('*.')) {
      this.#suffixes.push(text.slice(1));
    } else {
      this.#names.add(text);
    }
  }
}

/** Lowercase, without IPv6 brackets or the trailing dot of a fully qualified name. @internal */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}
