/**
 * A run's conversation in the studio, in headless Chromium against a real listening HubOS: every
 * message its session keeps (past what `historyLimit` sends the model), newest page first, earlier
 * pages on demand, markup shown as text. Needs Debian's chromium; fails, never skips, without it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { launchChromium } from '../helpers/chromium.ts';

const POLL = { timeout: 10_000, interval: 50 };
const TURNS = 60;

describe('the studio: a run’s conversation', () => {
  let kernel: Kernel;
  let hubos: HubOS;
  let url: string;
  let browser: Browser;
  let lastRun: string;

  beforeAll(async () => {
    const model = new ScriptedModel(Array.from({ length: TURNS }, (_, i) => `answer ${i + 1}`));
    kernel = await bootKernel({ config: { sessions: { historyLimit: 6 }, agents: { helper: { model } } } });
    hubos = new HubOS({ kernel, name: 'session-hub', port: 0, rateLimit: false });
    hubos.registerAgent('helper', kernel.agent('helper'));
    url = await hubos.serve();
    for (let i = 1; i <= TURNS; i++) {
      const input = i === 1 ? '<img src=x onerror="window.pwned=1"> the first question' : `question ${i}`;
      const response = await fetch(`${url}/api/agents/helper/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input, sessionId: 'long' }),
      });
      lastRun = ((await response.json()) as { runId: string }).runId;
    }
    browser = await launchChromium('the studio page tests');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await hubos?.close();
    await kernel?.close();
  });

  it('shows the last page of messages when opened, then earlier ones, down to the first', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${url}/#/runs/${lastRun}`);
    await page.locator('#session summary').click();
    const messages = page.locator('#session-messages .session-message');
    await expect.poll(() => messages.count(), POLL).toBe(100);
    expect(await page.locator('#session .hint').innerText()).toContain('120 messages in this session');
    expect(await messages.last().innerText()).toContain(`answer ${TURNS}`);
    await page.locator('.session-earlier').click();
    await expect.poll(() => messages.count(), POLL).toBe(2 * TURNS);
    expect(await messages.first().innerText()).toContain('the first question');
    expect(await page.locator('.session-earlier').isHidden()).toBe(true);
    // Indexes run 0..119 in order, none twice: the earlier page did not overlap the first.
    const indexes = await messages.evaluateAll((rows) => rows.map((row) => Number(row.dataset.index)));
    expect(indexes).toEqual(Array.from({ length: 2 * TURNS }, (_, i) => i));
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
