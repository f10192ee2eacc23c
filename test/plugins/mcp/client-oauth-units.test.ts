import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signingAlgorithm } from '../../../plugins/mcp/client/config-check.ts';
import { listenForCallback, PortInUseError } from '../../../plugins/mcp/client/loopback.ts';
import { samplingPolicy } from '../../../plugins/mcp/client/sampling.ts';

const pem = (type: 'rsa' | 'ec' | 'ed25519', namedCurve?: string) =>
  generateKeyPairSync(
    type as 'rsa',
    {
      modulusLength: 2048,
      ...(namedCurve ? { namedCurve } : {}),
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    } as never,
  ).privateKey as unknown as string;

describe('mcp client OAuth pieces', () => {
  it('picks the JWS algorithm from the private key, unless one is set', () => {
    expect(signingAlgorithm({ privateKey: pem('rsa') })).toBe('RS256');
    expect(signingAlgorithm({ privateKey: pem('ec', 'P-256') })).toBe('ES256');
    expect(signingAlgorithm({ privateKey: pem('ec', 'P-384') })).toBe('ES384');
    expect(signingAlgorithm({ privateKey: pem('ed25519') })).toBe('EdDSA');
    expect(signingAlgorithm({ privateKey: pem('rsa'), algorithm: 'PS256' })).toBe('PS256');
    expect(() => signingAlgorithm({ privateKey: 'secret-ish text' }, 'mcp.servers.x.auth')).toThrow(
      /mcp\.servers\.x\.auth\.privateKey is not a PEM private key/,
    );
    try {
      signingAlgorithm({ privateKey: 'secret-ish text' });
    } catch (error) {
      expect(String(error)).not.toContain('secret-ish');
    }
  });

  it("the loopback listener takes only its own authorization's code, on 127.0.0.1, once", async () => {
    const callback = await listenForCallback(0, 'the-state', 'srv');
    const base = `http://127.0.0.1:${callback.port}`;
    expect((await fetch(`${base}/other?code=c&state=the-state`)).status).toBe(404);
    expect((await fetch(`${base}/callback?code=c&state=forged`)).status).toBe(400);
    expect((await fetch(`${base}/callback?state=the-state`)).status).toBe(400);
    const ok = await fetch(`${base}/callback?code=the-code&state=the-state`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    await expect(callback.code).resolves.toBe('the-code');
    await expect(fetch(`${base}/callback?code=again&state=the-state`)).rejects.toThrow();
  });

  it("rejects with the authorization server's refusal, and says when the port is taken", async () => {
    const callback = await listenForCallback(0, 's', 'srv');
    await fetch(
      `http://127.0.0.1:${callback.port}/callback?state=s&error=access_denied&error_description=${encodeURIComponent('The user said no')}`,
    );
    await expect(callback.code).rejects.toThrow(
      'the authorization server answered access_denied: The user said no',
    );
    const holder = await listenForCallback(0, 'x', 'srv');
    await expect(listenForCallback(holder.port, 'y', 'srv')).rejects.toBeInstanceOf(PortInUseError);
    holder.close();
    await expect(holder.code).rejects.toThrow('the authorization was given up');
  });

  it('sampling limits: the defaults, the given ones, none when off', () => {
    expect(samplingPolicy(undefined)).toEqual({ maxTokens: 4_096, maxRequests: 5 });
    expect(samplingPolicy(true)).toEqual({ maxTokens: 4_096, maxRequests: 5 });
    expect(samplingPolicy({ maxRequests: 1 })).toEqual({ maxTokens: 4_096, maxRequests: 1 });
    expect(samplingPolicy(false)).toBeUndefined();
  });
});
