/**
 * The app `hubos init` makes, served by `hubos serve` (a real process) and chatted with on its page
 * in headless Chromium: the offline demo model calls the app's own dice_roll tool and answers.
 * Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.ts';
import { HUBOS_BIN, hubos, tempDir } from '../helpers/run.ts';
import { type ServeProcess, serveProcess, stopServe } from '../helpers/serve-process.ts';

const POLL = { timeout: 15_000, interval: 50 };

let browser: Browser;
let server: ServeProcess | undefined;

beforeAll(async () => {
  browser = await launchChromium('the init app page test');
});

afterAll(async () => {
  await browser?.close();
  await stopServe(server);
});

it('hubos init, then hubos serve: the page chats with the agent, which rolls the dice', async () => {
  const app = await tempDir('hubos-init-page-');
  const init = await hubos(['init'], app);
  expect(init.code, init.stderr).toBe(0);

  const env = { ...process.env };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'HUBOS_API_KEYS'])
    delete env[key];
  server = await serveProcess(process.execPath, [HUBOS_BIN], { cwd: app, env });
  const { url } = server;

  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  await page.goto(`${url}/`);
  await expect.poll(() => page.locator('#agent option').allInnerTexts(), POLL).toEqual(['assistant']);
  await expect
    .poll(() => page.locator('#agent-tools .tool-chip').allInnerTexts(), POLL)
    .toEqual(['dice_roll']);

  await page.locator('#message').fill('/dice_roll {"count": 2}');
  await page.locator('#message').press('Enter');
  const call = page.locator('.tool').first();
  await expect.poll(() => call.locator('.badge').innerText(), POLL).toMatch(/^done · \d+ ms$/);
  await expect
    .poll(() => page.locator('.msg.assistant .bubble').last().innerText(), POLL)
    .toMatch(/^dice_roll returned: \{"rolls":\[[1-6],[1-6]\],"total":\d+\}$/);
  expect(problems).toEqual([]);
  await page.close();
});
