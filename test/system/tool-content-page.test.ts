/**
 * The chat page (`GET /`) in headless Chromium against a real listening HubOS, for what tools say
 * beyond text: a tool's question (tc.elicit) becomes a form the user fills in (or declines), a
 * rich result (toolOutput) shows its image below the call, and what the tool logged sits in the
 * call's body. Whatever the tool wrote is shown as text, never run.
 * Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type ElicitResult, type Kernel, type Plugin, toolOutput } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { CHROMIUM, launchChromium, missingChromium } from '../helpers/chromium.ts';

const PAGE_TESTS = 'the page tests';
const POLL = { timeout: 10_000, interval: 50 };

// A 2×2 red PNG.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAwMDAwMAAAAz7Af9W7MRtAAAAAElFTkSuQmCC';
// An SVG that would run a script if the page drew it as a document.
const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" onload="window.svgRan=true"><script>window.svgRan=true</script></svg>',
).toString('base64');

const answers: ElicitResult[] = [];

const orderShirt = defineTool({
  name: 'order_shirt',
  description: 'Orders a shirt, asking for the details.',
  inputSchema: { type: 'object', properties: {} },
  handler: async (_options, tc) => {
    tc.log('info', 'asking for the details', { attempt: 1 });
    const answer = await tc.elicit({
      message: 'Shirt details? <b>bold</b><img src=x onerror="window.injected=true">',
      schema: {
        type: 'object',
        properties: {
          name: {
            type: 'string',
            title: 'Name on the shirt',
            description: 'Starts with a capital letter.',
            pattern: '^[A-Z]',
          },
          copies: { type: 'integer', title: 'Copies', minimum: 1, default: 2 },
          size: {
            type: 'string',
            title: 'Size',
            oneOf: [
              { const: 'S', title: 'Small' },
              { const: 'L', title: 'Large' },
            ],
            default: 'L',
          },
          gift: { type: 'boolean', title: 'Gift wrap', default: false },
        },
        required: ['name', 'size'],
      },
    });
    answers.push(answer);
    if (answer.action !== 'accept') return `not ordered (${answer.action})`;
    return toolOutput({
      content: [
        { type: 'text', text: 'Your shirt: <script>window.injected=true</script>' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'image', data: SVG, mimeType: 'image/svg+xml' },
        { type: 'resource_link', uri: 'javascript:window.injected=true', name: 'receipt' },
        { type: 'resource_link', uri: 'https://example.com/track', name: 'tracking' },
      ],
    });
  },
});

const toolsPlugin: Plugin = {
  name: 'shop-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('shop-tools', (registry) => registry.register(orderShirt));
  },
};

const model = new ScriptedModel([], { modelId: 'shop-model' });
let kernel: Kernel;
let browser: Browser;
let hubos: HubOS;
let url: string;

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  await page.goto(`${url}/`);
  await expect.poll(() => page.locator('#message').isEnabled(), POLL).toBe(true);
  return { page, errors };
}

async function sendMessage(page: Page, message: string): Promise<void> {
  await page.locator('#message').fill(message);
  await page.locator('#message').press('Enter');
}

it("has Debian's chromium installed (the system tests fail, never skip, without it)", () => {
  expect(existsSync(CHROMIUM), missingChromium(PAGE_TESTS)).toBe(true);
});

describe("the chat page: a tool's question and rich result", () => {
  beforeAll(async () => {
    kernel = await bootKernel({
      config: { agents: { shop: { model, description: 'Orders shirts.', tools: ['order_shirt'] } } },
      plugins: [toolsPlugin],
    });
    hubos = new HubOS({ kernel, name: 'shop-hub', port: 0, rateLimit: false });
    hubos.registerAgent('shop', kernel.agent('shop'));
    url = await hubos.serve();
    browser = await launchChromium(PAGE_TESTS);
  });

  afterAll(async () => {
    await browser?.close();
    await hubos?.close();
    await kernel?.close();
  });

  it('asks with a form; a refused answer says why; the answer reaches the tool; the image shows', async () => {
    const { page, errors } = await openPage();
    model.push({ toolCalls: [{ name: 'order_shirt', id: 'call-1' }] }, 'Ordered.');
    await sendMessage(page, 'Order me a shirt');

    const call = page.locator('.tool').nth(0);
    const question = call.locator('.approval.question');
    await expect.poll(() => question.isVisible(), POLL).toBe(true);
    expect(await call.locator('.badge').innerText()).toBe('asks you');
    expect(await question.locator('h3').innerText()).toMatch(
      /^Question from order_shirt \(expires in [45]:\d\d\)$/,
    );
    // The message is text: its markup shows as typed and builds nothing.
    expect(await question.locator('.question-message').innerText()).toBe(
      'Shirt details? <b>bold</b><img src=x onerror="window.injected=true">',
    );
    expect(await question.locator('.question-message b, .question-message img').count()).toBe(0);
    expect(await page.locator('#status').innerText()).toBe('order_shirt asks you a question.');
    // The first field has the focus; defaults are filled in.
    expect(await page.locator(':focus').getAttribute('id')).toBe(
      await question.getByLabel('Name on the shirt').getAttribute('id'),
    );
    expect(await question.getByLabel('Copies').inputValue()).toBe('2');
    expect(await question.getByLabel('Size').locator('option:checked').innerText()).toBe('Large');
    expect(await question.getByLabel('Gift wrap').isChecked()).toBe(false);
    expect(await question.getByText('Starts with a capital letter.').isVisible()).toBe(true);
    if (process.env.TOOL_PAGE_SCREENSHOTS)
      await page.screenshot({ path: `${process.env.TOOL_PAGE_SCREENSHOTS}/question.png`, fullPage: true });

    // The browser does not check `pattern` here: the server does, and the page says what is wrong.
    await question.getByLabel('Name on the shirt').fill('ada');
    await question.getByRole('button', { name: 'Submit' }).click();
    const problem = question.locator('.approval-error[role="alert"]');
    await expect.poll(() => problem.isVisible(), POLL).toBe(true);
    expect(await problem.innerText()).toMatch(/^APPROVAL_ANSWER_INVALID: .*name/);
    expect(answers).toEqual([]);

    await question.getByLabel('Name on the shirt').fill('Ada');
    await question.getByLabel('Copies').fill('3');
    await question.getByLabel('Size').selectOption({ label: 'Small' });
    await question.getByLabel('Gift wrap').check();
    await question.getByLabel('Name on the shirt').press('Enter');

    await expect.poll(() => call.getAttribute('data-status'), POLL).toBe('ok');
    expect(answers).toEqual([
      { action: 'accept', content: { name: 'Ada', copies: 3, size: 'S', gift: true } },
    ]);
    expect(await question.locator('.outcome').innerText()).toBe('Answered.');
    expect(JSON.parse(await question.locator('.answer').innerText())).toEqual({
      name: 'Ada',
      copies: 3,
      size: 'S',
      gift: true,
    });
    expect(await question.locator('form').isVisible()).toBe(false);

    // The PNG shows below the call, loaded; the SVG is not drawn, only named.
    const image = call.locator('.tool-media img');
    await expect.poll(() => image.count(), POLL).toBe(1);
    expect(await image.isVisible()).toBe(true);
    expect(await image.getAttribute('alt')).toBe('Image from order_shirt');
    await expect
      .poll(
        () =>
          image.evaluate(
            (img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth,
          ),
        POLL,
      )
      .toBe(2);
    expect(await image.getAttribute('src')).toBe(`data:image/png;base64,${PNG}`);

    await call.locator('summary').click();
    const body = call.locator('.tool-body');
    expect(await body.locator('.part-text').innerText()).toBe(
      'Your shirt: <script>window.injected=true</script>',
    );
    expect(await body.innerText()).toContain(
      '[image image/svg+xml: image/svg+xml is not a type the page shows]',
    );
    // Only the http(s) link is a link.
    expect(await body.locator('a').count()).toBe(1);
    expect(await body.locator('a').getAttribute('href')).toBe('https://example.com/track');
    expect(await body.locator('a').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await body.locator('.part-link code').innerText()).toBe('receipt');
    // The log line is there, small, in the body.
    expect(await body.locator('.tool-log li').innerText()).toBe('INFO asking for the details {"attempt":1}');
    if (process.env.TOOL_PAGE_SCREENSHOTS)
      await page.screenshot({ path: `${process.env.TOOL_PAGE_SCREENSHOTS}/result.png`, fullPage: true });

    await expect.poll(() => page.locator('.msg.assistant .bubble').last().innerText(), POLL).toBe('Ordered.');
    expect(await page.evaluate(() => (globalThis as { injected?: boolean }).injected)).toBeUndefined();
    expect(await page.evaluate(() => (globalThis as { svgRan?: boolean }).svgRan)).toBeUndefined();
    // The refused answer's 400 is the only thing the browser complains of.
    expect(errors).toEqual([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);

    // The tab keeps the conversation: after a reload the answered question and the image are there.
    await page.reload();
    await expect
      .poll(() => page.locator('.approval.question .outcome').allInnerTexts(), POLL)
      .toEqual(['Answered.']);
    await expect
      .poll(
        () =>
          page
            .locator('.tool-media img')
            .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        POLL,
      )
      .toBe(2);
  });

  it('Decline tells the tool', async () => {
    const { page, errors } = await openPage();
    model.push({ toolCalls: [{ name: 'order_shirt', id: 'call-2' }] }, 'Not ordered.');
    await sendMessage(page, 'Another shirt');
    const call = page.locator('.tool').last();
    const question = call.locator('.approval.question');
    await expect.poll(() => question.isVisible(), POLL).toBe(true);
    await question.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => call.getAttribute('data-status'), POLL).toBe('ok');
    expect(answers.at(-1)).toEqual({ action: 'decline' });
    expect(await question.locator('.outcome').innerText()).toBe('Declined: the tool was told you declined.');
    await expect
      .poll(() => page.locator('.msg.assistant .bubble').last().innerText(), POLL)
      .toBe('Not ordered.');

    expect(await call.locator('.tool-media img').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
