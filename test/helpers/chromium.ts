/**
 * Debian's headless Chromium as the page tests and benches launch it: one place for its path, the
 * flags that keep it quiet (no GPU, no first-run, no background calls home) and what to say when
 * it is missing.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What `who` (e.g. "the chat page tests") says when Chromium is missing: where, and how to install it. */
export function missingChromium(who: string): string {
  return `${who}: Debian's chromium at ${CHROMIUM} is missing; install it with "apt-get update && apt-get install -y chromium" (.ci/run does)`;
}

/** Launches Chromium (with `extraArgs` after the usual ones), or throws `missingChromium(who)` when it is not installed. */
export async function launchChromium(who: string, extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(missingChromium(who));
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
