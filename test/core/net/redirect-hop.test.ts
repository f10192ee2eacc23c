import { describe, expect, it } from 'vitest';
import { redirectHop } from '../../../core/index.ts';

const from = new URL('https://api.example.com/v1/items?x=1');

describe('redirectHop', () => {
  it('is undefined for a final response, a missing Location or one that does not parse', () => {
    expect(redirectHop(from, 'GET', 200, '/elsewhere')).toBeUndefined();
    expect(redirectHop(from, 'GET', 304, '/elsewhere')).toBeUndefined();
    expect(redirectHop(from, 'GET', 302, null)).toBeUndefined();
    expect(redirectHop(from, 'GET', 302, 'http://[::1')).toBeUndefined();
  });

  it('307 and 308 keep the method and body; a relative Location resolves against the URL that answered', () => {
    expect(redirectHop(from, 'POST', 307, 'v2#frag')).toEqual({
      url: new URL('https://api.example.com/v1/v2'),
      method: 'POST',
      keepsBody: true,
      dropHeaders: [],
    });
  });

  it('303, and 301/302 after a POST, become a GET without the body or its headers', () => {
    for (const [status, method] of [
      [303, 'PUT'],
      [301, 'POST'],
      [302, 'post'],
    ] as const) {
      const hop = redirectHop(from, method, status, '/done');
      expect(hop).toMatchObject({ method: 'GET', keepsBody: false });
      expect(hop!.dropHeaders).toContain('content-type');
    }
    expect(redirectHop(from, 'HEAD', 303, '/done')).toMatchObject({ method: 'HEAD', keepsBody: true });
  });

  it('a hop to another origin (another scheme or port included) drops the credentials', () => {
    for (const location of [
      'https://other.example/',
      'http://api.example.com/',
      'https://api.example.com:8443/',
    ])
      expect(redirectHop(from, 'GET', 302, location)!.dropHeaders).toEqual([
        'authorization',
        'cookie',
        'proxy-authorization',
      ]);
  });
});
