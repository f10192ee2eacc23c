/**
 * The address guard at the connection: a hostname is resolved once per connection, each answer
 * checked, and the socket goes to exactly those answers. 127.0.0.2, allowed by the guard's list,
 * stands for a public address; 127.0.0.1 (not allowed) is where an attacker aims.
 */
import type { RequestListener } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AddressGuard,
  AddressRefusedError,
  classifyAddress,
  type DnsResolver,
  guardedFetch,
} from '../../../core/index.ts';
import { countingServer } from '../../helpers/counting-server.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An HTTP server on `host` that names itself in its answers and counts its connections. */
async function serverOn(host: string, port = 0, handler: RequestListener = (_req, res) => res.end(host)) {
  const server = await countingServer(handler, { host, port });
  cleanups.push(server.close);
  return server;
}

/** A resolver whose first answer for a name is `first`, and every later one `then`. */
function rebinding(first: string, then: string) {
  let calls = 0;
  return vi.fn<DnsResolver>(async () => [{ address: calls++ === 0 ? first : then, family: 4 }]);
}

describe('guardedFetch', () => {
  it('connects to the address it checked: DNS answering again differently is never asked', async () => {
    const target = await serverOn('127.0.0.1');
    const decoy = await serverOn('127.0.0.2', target.port);
    const resolver = rebinding('127.0.0.2', '127.0.0.1');
    const guard = new AddressGuard({ allowHosts: ['127.0.0.2'], resolver });
    const response = await guardedFetch(guard)(`http://rebind.test:${target.port}/`);
    expect(await response.text()).toBe('127.0.0.2');
    expect(response).toBeInstanceOf(Response);
    expect(resolver).toHaveBeenCalledTimes(1);
    expect(decoy.connections()).toBe(1);
    expect(target.connections()).toBe(0);
    // A new connection resolves anew, and that answer is checked in turn.
    const again = guardedFetch(guard)(`http://rebind.test:${target.port}/`);
    await expect(again).rejects.toThrow(AddressRefusedError);
    await expect(again).rejects.toThrow(
      'blocked: rebind.test resolves to 127.0.0.1, which is a loopback address (add rebind.test to allowHosts to allow it)',
    );
    expect(target.connections()).toBe(0);
  });

  it('checks an IP as written, with no lookup', async () => {
    const target = await serverOn('127.0.0.1');
    const resolver = vi.fn<DnsResolver>();
    const send = guardedFetch(new AddressGuard({ resolver, setting: 'http.allowHosts' }));
    for (const host of ['127.0.0.1', '127.1', '[::ffff:127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]'])
      await expect(send(`http://${host}:${target.port}/`)).rejects.toThrow(
        /^blocked: .*loopback address \(add it to http\.allowHosts/,
      );
    expect(resolver).not.toHaveBeenCalled();
    expect(target.connections()).toBe(0);
  });

  it('checks each redirect: one to loopback or to a name that resolves to a private address is refused', async () => {
    const target = await serverOn('127.0.0.1');
    const toLoopback = await serverOn('127.0.0.2', 0, (_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/` }).end(),
    );
    const toName = await serverOn('127.0.0.2', 0, (_req, res) =>
      res.writeHead(307, { location: `http://inside.test:${target.port}/` }).end(),
    );
    const resolver = vi.fn<DnsResolver>(async (name) => [
      { address: name === 'inside.test' ? '10.0.0.5' : '127.0.0.2', family: 4 },
    ]);
    const send = guardedFetch(new AddressGuard({ allowHosts: ['127.0.0.2'], resolver }));
    await expect(send(`http://start.test:${toLoopback.port}/`)).rejects.toThrow(
      'blocked: 127.0.0.1 is a loopback address',
    );
    await expect(send(`http://start.test:${toName.port}/`)).rejects.toThrow(
      'blocked: inside.test resolves to 10.0.0.5, which is a private address',
    );
    expect(target.connections()).toBe(0);
  });

  it('an allowed name goes to whatever it resolves to; names of local services are refused before DNS', async () => {
    const target = await serverOn('127.0.0.1');
    const resolver = vi.fn<DnsResolver>(async () => [{ address: '127.0.0.1', family: 4 }]);
    const send = guardedFetch(new AddressGuard({ allowHosts: ['*.dev.test'], resolver }));
    expect(await (await send(`http://api.dev.test:${target.port}/`)).text()).toBe('127.0.0.1');
    for (const name of ['localhost', 'app.localhost', 'metadata.google.internal'])
      await expect(send(`http://${name}:${target.port}/`)).rejects.toThrow(`blocked: ${name} is a`);
    expect(resolver).toHaveBeenCalledTimes(1);
  });
});

describe('classifyAddress', () => {
  it('judges IPv6 forms that carry an IPv4 address by that address; public ones pass', () => {
    expect(classifyAddress('64:ff9b::a9fe:a9fe')).toEqual({
      kind: 'a cloud metadata address',
      embedded: '169.254.169.254',
    });
    expect(classifyAddress('::ffff:0:a00:5')).toEqual({ kind: 'a private address', embedded: '10.0.0.5' });
    for (const ip of [
      '64:ff9b::808:808',
      '2002:808:808::1',
      '::ffff:8.8.8.8',
      '2606:4700:4700::1111',
      '8.8.8.8',
    ])
      expect(classifyAddress(ip), ip).toBeUndefined();
    for (const ip of [
      'fec0::1',
      'ff0e::1',
      '100::1',
      '2001:db8::1',
      '2001:0:4136:e378::1',
      '64:ff9b:1::1',
      '192.0.2.1',
      '203.0.113.9',
    ])
      expect(classifyAddress(ip), ip).toBeDefined();
  });
});
