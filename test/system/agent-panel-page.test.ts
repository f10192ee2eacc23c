/**
 * The chat page's agent panel in headless Chromium: the page opens at its top with the panel in
 * view, the tools show as names, and a tool's description shows only when asked for (by mouse or
 * keyboard). Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defineTool, type Kernel, type Plugin } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { launchChromium } from '../helpers/chromium.ts';

const POLL = { timeout: 10_000, interval: 50 };

/** A description as long as the longest built-in ones (`task`'s runs to a dozen lines). */
const LONG_DESCRIPTION = `Delegates a task to a helper.\n${'It works alone and reports back. '.repeat(30)}`;
/** Enough tools that the panel fills more than the small window the page is opened in. */
const TOOL_NAMES = ['delegate', ...Array.from({ length: 40 }, (_, i) => `tool_${i}`)];

const tools: Plugin = {
  name: 'panel-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('panel-tools', (registry) =>
      registry.registerBatch(
        TOOL_NAMES.map((name) =>
          defineTool({
            name,
            description: name === 'delegate' ? LONG_DESCRIPTION : `What ${name} does.`,
            inputSchema: { type: 'object', properties: {} },
            handler: () => 'ok',
          }),
        ),
      ),
    );
  },
};

let kernel: Kernel;
let hubos: HubOS;
let browser: Browser;
let url: string;

beforeAll(async () => {
  kernel = await bootKernel({
    config: {
      agents: {
        busy: { model: new ScriptedModel([]), description: 'Has many tools.', tools: TOOL_NAMES },
        idle: { model: new ScriptedModel([]), description: 'Has none.' },
      },
    },
    plugins: [tools],
  });
  hubos = new HubOS({ kernel, name: 'panel-hub', port: 0, rateLimit: false });
  hubos.registerAgent('busy', kernel.agent('busy'));
  hubos.registerAgent('idle', kernel.agent('idle'));
  url = await hubos.serve();
  browser = await launchChromium('the page tests');
});

afterAll(async () => {
  await browser?.close();
  await hubos?.close();
  await kernel?.close();
});

/** The page in a small window (so its content overflows), with the page's own errors recorded. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 480, height: 420 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  await page.goto(`${url}/`);
  await expect.poll(() => page.locator('.tool-chip').count(), POLL).toBe(TOOL_NAMES.length);
  return { page, errors };
}

// Run in the page (as text: the tests are type-checked without the DOM's types).
const SCROLLED = `(() => {
  const main = document.querySelector('main');
  return { window: window.scrollY, main: main.scrollTop, overflows: main.scrollHeight > main.clientHeight };
})()`;
const NEXT_FRAME = 'new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100)))';

/** Where the page and its scrolling conversation area are scrolled to. */
const scrolled = (page: Page) =>
  page.evaluate<{ window: number; main: number; overflows: boolean }>(SCROLLED);

it('opens at its top, the agent panel in view', async () => {
  const { page, errors } = await openPage();
  // Let the page settle (a scroll queued for the next frame would land by then).
  await page.evaluate(NEXT_FRAME);
  expect(await scrolled(page)).toEqual({ window: 0, main: 0, overflows: true });
  const panel = await page.locator('#agent-info').boundingBox();
  const main = await page.locator('main').boundingBox();
  expect(panel!.y).toBeGreaterThanOrEqual(main!.y);

  // Another agent's panel opens at its top too.
  await page.evaluate("document.querySelector('main').scrollTo(0, 1e6)");
  await page.locator('#agent').selectOption('idle');
  await expect.poll(() => page.locator('#agent-description').innerText(), POLL).toBe('Has none.');
  expect((await scrolled(page)).main).toBe(0);
  expect(await page.locator('#agent-tools').innerText()).toBe('none');
  expect(errors).toEqual([]);
  await page.context().close();
});

it('lists the tools by name, and shows a description only when asked for', async () => {
  const { page, errors } = await openPage();
  expect(await page.locator('.tool-chip').allInnerTexts()).toEqual(TOOL_NAMES);
  expect(await page.locator('#agent-info dt').allInnerTexts()).toEqual([
    'Model',
    `Tools (${TOOL_NAMES.length})`,
  ]);
  const about = page.locator('#agent-tool-about');
  expect(await about.isHidden()).toBe(true);
  expect(await page.locator('#agent-info').innerText()).not.toContain('It works alone');
  expect(await page.locator('#agent-info').innerText()).not.toContain('What tool_0 does.');

  // A click shows the tool's description below the names; another tool's replaces it.
  const delegate = page.getByRole('button', { name: 'delegate', exact: true });
  await delegate.click();
  expect(await about.isVisible()).toBe(true);
  expect(await about.innerText()).toContain('delegate\nDelegates a task to a helper.\nIt works alone');
  expect(await delegate.getAttribute('aria-expanded')).toBe('true');
  expect(await delegate.getAttribute('aria-controls')).toBe('agent-tool-about');
  await page.getByRole('button', { name: 'tool_3', exact: true }).click();
  expect(await about.innerText()).toBe('tool_3\nWhat tool_3 does.');
  expect(await delegate.getAttribute('aria-expanded')).toBe('false');

  // With the keyboard: Enter opens the focused tool's description, Enter again or Escape closes it.
  const tool7 = page.getByRole('button', { name: 'tool_7', exact: true });
  await tool7.focus();
  await page.keyboard.press('Enter');
  expect(await about.innerText()).toBe('tool_7\nWhat tool_7 does.');
  await page.keyboard.press('Enter');
  expect(await about.isHidden()).toBe(true);
  expect(await tool7.getAttribute('aria-expanded')).toBe('false');
  await page.keyboard.press('Space');
  expect(await about.isVisible()).toBe(true);
  await page.keyboard.press('Escape');
  expect(await about.isHidden()).toBe(true);
  await page.keyboard.press('Tab');
  expect(await page.locator(':focus').innerText()).toBe('tool_8');
  expect(errors).toEqual([]);
  await page.context().close();
});
