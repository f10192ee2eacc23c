import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AddressGuard, classifyAddress } from '../../../../core/index.ts';
import { type DnsResolver, httpTools } from '../../../../plugins/builtin-tools/http/index.ts';
import { call, failure, output } from './helpers.ts';
import { type LocalServer, localServer } from './local-server.ts';

let server: LocalServer;
beforeAll(async () => {
  server = await localServer();
});
afterAll(() => server.close());

/** A resolver answering from a table; fails the test if asked about anything else. */
function resolverOf(table: Record<string, string[]>) {
  return vi.fn<DnsResolver>(async (hostname) => {
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`unexpected lookup of ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  });
}

describe('address forms the tools refuse without connecting', () => {
  // Every spelling of an internal address; the test server sits at 127.0.0.1:<port>.
  const cases: [host: string, reason: RegExp][] = [
    ['127.0.0.1', /127\.0\.0\.1 is a loopback address/],
    ['127.1', /127\.0\.0\.1 is a loopback address/],
    ['2130706433', /127\.0\.0\.1 is a loopback address/],
    ['0x7f.1', /127\.0\.0\.1 is a loopback address/],
    ['0x7f000001', /127\.0\.0\.1 is a loopback address/],
    ['017700000001', /127\.0\.0\.1 is a loopback address/],
    ['127.0.0.1.', /127\.0\.0\.1 is a loopback address/],
    ['[::ffff:127.0.0.1]', /::ffff:7f00:1 \(IPv4 127\.0\.0\.1\) is a loopback address/],
    ['[::ffff:7f00:1]', /::ffff:7f00:1 \(IPv4 127\.0\.0\.1\) is a loopback address/],
    ['[0:0:0:0:0:ffff:7f00:1]', /IPv4 127\.0\.0\.1\) is a loopback address/],
    ['[::127.0.0.1]', /::7f00:1 \(IPv4 127\.0\.0\.1\) is a loopback address/],
    ['[64:ff9b::127.0.0.1]', /IPv4 127\.0\.0\.1\) is a loopback address/],
    ['[2002:7f00:1::]', /IPv4 127\.0\.0\.1\) is a loopback address/],
    ['[::1]', /::1 is a loopback address/],
    ['[0:0:0:0:0:0:0:1]', /::1 is a loopback address/],
    ['0.0.0.0', /0\.0\.0\.0 is an unspecified address/],
    ['0', /0\.0\.0\.0 is an unspecified address/],
    ['[::]', /:: is an unspecified address/],
    ['10.0.0.5', /10\.0\.0\.5 is a private address/],
    ['172.16.0.1', /172\.16\.0\.1 is a private address/],
    ['172.31.255.255', /is a private address/],
    ['192.168.1.1', /192\.168\.1\.1 is a private address/],
    ['100.64.0.1', /100\.64\.0\.1 is a private address/],
    ['[::ffff:10.1.2.3]', /IPv4 10\.1\.2\.3\) is a private address/],
    ['169.254.1.1', /169\.254\.1\.1 is a link-local address/],
    ['[fe80::1]', /fe80::1 is a link-local address/],
    ['[fc00::1]', /fc00::1 is a unique-local address/],
    ['[fd12:3456::1]', /is a unique-local address/],
    ['224.0.0.1', /224\.0\.0\.1 is a multicast address/],
    ['[ff02::1]', /ff02::1 is a multicast address/],
    ['169.254.169.254', /169\.254\.169\.254 is a cloud metadata address/],
    ['[::ffff:169.254.169.254]', /IPv4 169\.254\.169\.254\) is a cloud metadata address/],
    ['[fd00:ec2::254]', /fd00:ec2::254 is a cloud metadata address/],
    ['255.255.255.255', /is a reserved address/],
  ];
  const tools = httpTools({ resolver: resolverOf({}) });

  it.each(cases)('http://%s/ is refused', async (host, reason) => {
    const message = failure(await call(tools, 'http_get', { url: `http://${host}:${server.port}/` }));
    expect(message).toMatch(/blocked: /);
    expect(message).toMatch(reason);
    expect(message).toMatch(/add (it|\S+) to http\.allowHosts to allow it/);
    expect(server.seen).toHaveLength(0);
  });

  it('says exactly how to allow a loopback address', async () => {
    const message = failure(await call(tools, 'http_post', { url: `http://127.0.0.1:${server.port}/` }));
    expect(message).toContain(
      'blocked: 127.0.0.1 is a loopback address (add it to http.allowHosts to allow it)',
    );
  });

  it('refuses metadata and localhost names before any DNS lookup', async () => {
    const resolver = resolverOf({});
    const named = httpTools({ resolver });
    for (const host of [
      'metadata.google.internal',
      'METADATA.google.internal.',
      'localhost',
      'app.localhost',
    ]) {
      const message = failure(await call(named, 'http_get', { url: `http://${host}:${server.port}/` }));
      expect(message).toMatch(/^tool "http_get" failed: blocked: \S+ is a (cloud metadata|loopback) address/);
    }
    expect(resolver).not.toHaveBeenCalled();
    expect(server.seen).toHaveLength(0);
  });
});

describe('hostnames are checked on the address they resolve to', () => {
  it.each([
    ['127.0.0.1', /innocent\.test resolves to 127\.0\.0\.1, which is a loopback address/],
    ['10.0.0.5', /innocent\.test resolves to 10\.0\.0\.5, which is a private address/],
    ['::1', /innocent\.test resolves to ::1, which is a loopback address/],
    [
      '::ffff:127.0.0.1',
      /resolves to ::ffff:127\.0\.0\.1 \(IPv4 127\.0\.0\.1\), which is a loopback address/,
    ],
  ])('a name resolving to %s is refused', async (address, reason) => {
    const tools = httpTools({ resolver: resolverOf({ 'innocent.test': [address] }) });
    const message = failure(await call(tools, 'http_get', { url: `http://innocent.test:${server.port}/` }));
    expect(message).toMatch(reason);
    expect(message).toMatch(/add innocent\.test to http\.allowHosts/);
    expect(server.seen).toHaveLength(0);
  });

  it('one internal answer among public ones is enough to refuse', async () => {
    const tools = httpTools({ resolver: resolverOf({ 'mixed.test': ['93.184.216.34', '10.0.0.5'] }) });
    const message = failure(await call(tools, 'http_get', { url: 'http://mixed.test/' }));
    expect(message).toMatch(/mixed\.test resolves to 10\.0\.0\.5/);
  });

  it('a name that does not resolve says so', async () => {
    const tools = httpTools({ resolver: resolverOf({}) });
    expect(failure(await call(tools, 'http_get', { url: 'http://nowhere.test/' }))).toMatch(
      /could not resolve nowhere\.test: ENOTFOUND/,
    );
  });

  it('a public answer passes, pinned to the address that was checked', async () => {
    const guard = new AddressGuard({ resolver: resolverOf({ 'example.test': ['93.184.216.34'] }) });
    const pinned = await guard.addresses('example.test');
    expect(pinned).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('public addresses, including their IPv6 and mapped forms, are not classified', () => {
    for (const ip of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect(classifyAddress(ip)).toBeUndefined();
    }
  });
});

describe('allowHosts', () => {
  it('lets an allowed IP through', async () => {
    const tools = httpTools({ allowHosts: ['127.0.0.1'] });
    expect(output(await call(tools, 'http_get', { url: `${server.url}/` })).body).toBe('ok');
  });

  it('accepts CIDR ranges', async () => {
    const tools = httpTools({ allowHosts: ['127.0.0.0/8'] });
    expect(output(await call(tools, 'http_get', { url: `http://127.1:${server.port}/` })).status).toBe(200);
  });

  it('a listed name connects to the address its check resolved (DNS is asked once: no rebinding)', async () => {
    // First answer: the local server. Any later answer would point elsewhere: it must never be used.
    let calls = 0;
    const resolver = vi.fn<DnsResolver>(async () =>
      calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.255.255.1', family: 4 }],
    );
    const tools = httpTools({ allowHosts: ['api.internal.test'], resolver });
    const out = output(await call(tools, 'http_get', { url: `http://api.internal.test:${server.port}/` }));
    expect(out).toMatchObject({ status: 200, body: 'ok', url: `http://api.internal.test:${server.port}/` });
    expect(resolver).toHaveBeenCalledTimes(1);
    expect(server.seen.at(-1)?.headers.host).toBe(`api.internal.test:${server.port}`);
  });

  it('a listed name keeps every checked address, so connecting falls back between them', async () => {
    // The server listens on 127.0.0.1 only: ::1 is refused and the connection moves on to the next address.
    const resolver = resolverOf({ 'dual.test': ['::1', '127.0.0.1'] });
    const tools = httpTools({ allowHosts: ['dual.test'], resolver });
    expect(output(await call(tools, 'http_get', { url: `http://dual.test:${server.port}/` })).status).toBe(
      200,
    );
  });

  it('allowing a name does not allow the address it resolves to', async () => {
    const tools = httpTools({ allowHosts: ['api.internal.test'], resolver: resolverOf({}) });
    const before = server.seen.length;
    expect(failure(await call(tools, 'http_get', { url: `${server.url}/` }))).toMatch(
      /blocked: 127\.0\.0\.1/,
    );
    expect(server.seen).toHaveLength(before);
  });

  it('rejects a malformed CIDR range up front', () => {
    expect(() => httpTools({ allowHosts: ['10.0.0.0/33'] })).toThrow(/not a valid CIDR range/);
  });
});
