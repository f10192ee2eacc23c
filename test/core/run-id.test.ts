import { describe, expect, it } from 'vitest';
import { newRunId } from '../../core/runs/run-id.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('run ids', () => {
  it('are UUIDs version 7 carrying the time they were made', () => {
    const before = Date.now();
    const id = newRunId();
    const after = Date.now();
    expect(id).toMatch(UUID_V7);
    const time = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
  });

  it('sort by the time they were made, and never repeat', async () => {
    const first = Array.from({ length: 1000 }, newRunId);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newRunId();
    expect(new Set(first).size).toBe(1000);
    for (const id of first) expect(id < later).toBe(true);
  });
});
