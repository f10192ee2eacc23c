import type { McpRestartConfig } from '../config.ts';

export const DEFAULT_RESTART = { initialDelayMs: 1_000, maxDelayMs: 60_000 } as const;

/** The wait before retry number `failures` (1 for the first): doubling from the initial delay, capped. */
export function retryDelay(failures: number, restart: McpRestartConfig = {}): number {
  const initial = restart.initialDelayMs ?? DEFAULT_RESTART.initialDelayMs;
  const max = Math.max(initial, restart.maxDelayMs ?? DEFAULT_RESTART.maxDelayMs);
  return Math.min(max, initial * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}

/** True once `failures` in a row reached the configured limit (no limit by default). */
export function givesUp(failures: number, restart: McpRestartConfig = {}): boolean {
  return restart.maxAttempts !== undefined && failures >= restart.maxAttempts;
}
