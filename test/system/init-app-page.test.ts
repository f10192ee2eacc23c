/**
 * The app `hubos init` makes, served by `hubos serve` (a real process) and chatted with on its page
 * in headless Chromium: the offline demo model calls the app's own dice_roll tool and answers.
 * Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HUBOS_BIN, hubos, tempDir } from '../helpers/run.ts';

const CHROMIUM = '/usr/bin/chromium';
const POLL = { timeout: 15_000, interval: 50 };

let browser: Browser;
let server: ChildProcess | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`this test needs Debian's chromium at ${CHROMIUM}: apt-get install -y chromium`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server!.once('exit', resolve));
  }
});

it('hubos init, then hubos serve: the page chats with the agent, which rolls the dice', async () => {
  const app = await tempDir('hubos-init-page-');
  const init = await hubos(['init'], app);
  expect(init.code, init.stderr).toBe(0);

  const env = { ...process.env };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'HUBOS_API_KEYS'])
    delete env[key];
  server = spawn(process.execPath, [HUBOS_BIN, 'serve', '--port', '0'], { cwd: app, env });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`hubos serve did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += String(chunk);
      const found = /HubOS listening on (\S+)/.exec(output)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found.replace(/\/$/, ''));
      }
    };
    server!.stdout!.on('data', read);
    server!.stderr!.on('data', read);
    server!.once('exit', (code) => reject(new Error(`hubos serve exited with ${code}:\n${output}`)));
  });

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
