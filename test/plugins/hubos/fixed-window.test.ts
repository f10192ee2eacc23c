import { describe, expect, it } from 'vitest';
import { limitKey } from '../../../plugins/hubos/middleware/client-address.ts';
import { FixedWindows } from '../../../plugins/hubos/middleware/fixed-window.ts';

describe('FixedWindows', () => {
  it('answers the wait once a key is past its limit, per key', () => {
    const windows = new FixedWindows(60_000, 2);
    expect(windows.hit('a')).toBeUndefined();
    expect(windows.hit('a')).toBeUndefined();
    expect(windows.blocked('a')).toBeGreaterThan(0);
    expect(windows.hit('a')).toBeGreaterThan(0);
    expect(windows.hit('b')).toBeUndefined();
  });

  it('never holds more keys than its cap, whatever keys an attacker sends', () => {
    const windows = new FixedWindows(60_000, 5);
    for (let i = 0; i < 150_000; i++) windows.hit(`client-${i}`);
    expect(windows.size).toBeLessThanOrEqual(100_000);
    expect(windows.size).toBeGreaterThan(0);
  });
});

describe('limitKey', () => {
  it('counts an IPv6 address by its /64, and anything else as it is', () => {
    expect(limitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(limitKey('::1')).toBe('0:0:0:0::/64');
    expect(limitKey('::ffff:127.0.0.1')).toBe('::ffff:127.0.0.1');
    expect(limitKey('127.0.0.1')).toBe('127.0.0.1');
    expect(limitKey('unknown')).toBe('unknown');
  });
});
