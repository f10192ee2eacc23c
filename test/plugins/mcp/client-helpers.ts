import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import type { HubosConfig, Kernel, Logger, Plugin } from '../../../core/index.ts';
import mcp, { type McpConfig, type McpStdioServerConfig } from '../../../plugins/mcp/index.ts';
import { bootKernel } from '../../../testing/index.ts';

export const STDIO_FIXTURE = fileURLToPath(new URL('../../fixtures/mcp/stdio-server.ts', import.meta.url));

/** The stdio fixture server, run on the Node running the tests, with its flags. */
export function fixtureServer(
  flags: string[] = [],
  extra: Partial<McpStdioServerConfig> = {},
): McpStdioServerConfig {
  return { command: process.execPath, args: [STDIO_FIXTURE, ...flags], ...extra };
}

/** Small delays so retries happen within a test, even on a slow machine. */
export const FAST_RESTART = { initialDelayMs: 50, maxDelayMs: 400 } as const;

/** A logger that keeps what it is told, for checking what was reported. */
export function recordingLogger(): Logger & { lines: string[]; warnings(): string[] } {
  const lines: string[] = [];
  const push = (level: string) => (message: string) => {
    lines.push(`${level}: ${message}`);
  };
  return {
    lines,
    debug: () => undefined,
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
    warnings: () => lines.filter((line) => line.startsWith('warn: ')),
  };
}

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** Boots a kernel with the mcp plugin over `mcpConfig` (closed after the test). */
export async function bootMcp(
  mcpConfig: McpConfig,
  options: { config?: HubosConfig; logger?: Logger; plugins?: Plugin[] } = {},
): Promise<Kernel> {
  const kernel = await bootKernel({
    config: { ...options.config, mcp: { restart: FAST_RESTART, ...mcpConfig } },
    plugins: [mcp(), ...(options.plugins ?? [])],
    ...(options.logger ? { logger: options.logger } : {}),
  });
  kernels.push(kernel);
  return kernel;
}

/** Resolves once `check` holds (polling), or fails after `ms` saying what was awaited. */
export async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of running processes with `arg` on their command line (Linux: read from /proc). */
export function pidsWithArg(arg: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(arg)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
