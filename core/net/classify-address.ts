import { BlockList, isIP } from 'node:net';

/** Why an address is refused: the phrase completes "X is ...". */
export interface AddressVerdict {
  /** e.g. 'a loopback address'. */
  kind: string;
  /** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), when that decided it. */
  embedded?: string;
}

type Range = readonly [network: string, prefix: number];

// Most specific first: 169.254.169.254 is link-local too, but "metadata" says why it matters.
const RULES: readonly (readonly [kind: string, v4: readonly Range[], v6: readonly Range[]])[] = [
  [
    'a cloud metadata address',
    [
      ['169.254.169.254', 32],
      ['100.100.100.200', 32], // Alibaba Cloud
    ],
    [['fd00:ec2::254', 128]],
  ],
  ['an unspecified address', [['0.0.0.0', 8]], [['::', 128]]],
  ['a loopback address', [['127.0.0.0', 8]], [['::1', 128]]],
  [
    'a private address',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
    ],
    [['fec0::', 10]], // deprecated site-local
  ],
  ['a link-local address', [['169.254.0.0', 16]], [['fe80::', 10]]],
  ['a unique-local address', [], [['fc00::', 7]]],
  ['a multicast address', [['224.0.0.0', 4]], [['ff00::', 8]]],
  [
    'a reserved address',
    [
      ['240.0.0.0', 4], // includes 255.255.255.255
      ['192.0.0.0', 24],
      ['192.0.2.0', 24], // documentation (TEST-NET-1, -2, -3)
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['192.88.99.0', 24], // 6to4 relays
      ['198.18.0.0', 15], // benchmarking
    ],
    [
      ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates to this network's own IPv4 space
      ['100::', 64], // discard
      ['2001::', 23], // IETF protocol assignments: Teredo (an IPv4 address inside, obfuscated), ORCHID…
      ['2001:db8::', 32], // documentation
      ['3fff::', 20],
      ['5f00::', 16], // segment routing
    ],
  ],
];

const LISTS = RULES.map(([kind, v4, v6]) => {
  const list = new BlockList();
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return { kind, list };
});

/**
 * Why `ip` must not be reached by a request a model, a remote server or a web page can steer, or
 * undefined for a public address. IPv6 forms that carry an IPv4 address (mapped, compatible,
 * NAT64, 6to4) are judged by that address.
 */
export function classifyAddress(ip: string): AddressVerdict | undefined {
  const family = isIP(ip);
  if (family === 0) return { kind: 'not a valid IP address' };
  if (family === 4) return check(ip, 'ipv4');
  // Name the IPv4 address an IPv6 one smuggles, so the message says what was really targeted.
  const embedded = embeddedIPv4(ip);
  const inner = embedded === undefined ? undefined : check(embedded, 'ipv4');
  return inner ? { ...inner, embedded } : check(ip, 'ipv6');
}

function check(ip: string, type: 'ipv4' | 'ipv6'): AddressVerdict | undefined {
  // Node's BlockList matches IPv4-mapped IPv6 against IPv4 rules too; embeddedIPv4 covers the other forms.
  for (const { kind, list } of LISTS) if (list.check(ip, type)) return { kind };
  return undefined;
}

/**
 * The IPv4 address an IPv6 one routes to: `::ffff:a.b.c.d` (mapped), `::ffff:0:a.b.c.d`
 * (translated), `::a.b.c.d` (compatible),
 * `64:ff9b::a.b.c.d` (NAT64) and `2002:AABB:CCDD::` (6to4) all reach a.b.c.d.
 */
function embeddedIPv4(ip: string): string | undefined {
  const w = ipv6Words(ip);
  if (!w) return undefined;
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (zero(0, 5) && w[5] === 0xffff) return quad(w[6]!, w[7]!);
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return quad(w[6]!, w[7]!); // translated (SIIT)
  // Compatible form, but not ::/112, where :: and ::1 keep their IPv6 meaning.
  if (zero(0, 6) && w[6] !== 0) return quad(w[6]!, w[7]!);
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return quad(w[6]!, w[7]!);
  if (w[0] === 0x2002) return quad(w[1]!, w[2]!);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (with `::` and a dotted-quad tail expanded). */
function ipv6Words(ip: string): number[] | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}
