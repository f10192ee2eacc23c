import { describe, expect, it } from 'vitest';
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
