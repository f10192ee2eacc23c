/**
 * The chat page's workflow view in headless Chromium against a real listening HubOS: list the
 * served workflows, draw one's steps, run it and watch each step's state, stream and output; the
 * server's 400 for invalid input, a failing step, Stop, and a tool step waiting for approval.
 * Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type Kernel } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import workflows, { defineWorkflow } from '../../plugins/workflows/index.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { CHROMIUM, launchChromium, missingChromium } from '../helpers/chromium.ts';

const PAGE_TESTS = 'the workflow page tests';
const POLL = { timeout: 10_000, interval: 50 };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

/** The `facts` step waits for the test to open this gate, so the page can be seen mid-run. */
let factsGate = deferred();

const brief = defineWorkflow<{ topic: string; words: number }>({
  name: 'brief',
  description: 'Outlines a topic, drafts and checks it at once, then assembles the brief.',
  inputSchema: {
    type: 'object',
    properties: {
      topic: { type: 'string', minLength: 1, description: 'What the brief is about.' },
      words: { type: 'integer', minimum: 10, default: 50 },
    },
    required: ['topic'],
    additionalProperties: false,
  },
  steps: [
    {
      id: 'outline',
      kind: 'function',
      description: 'Splits the topic into points.',
      run: ({ input }) => ({ points: [`what ${input.topic} are`, `why they matter`] }),
    },
    {
      id: 'research',
      kind: 'parallel',
      steps: [
        {
          id: 'draft',
          kind: 'agent',
          agent: 'writer',
          input: 'Write {{input.words}} words on {{input.topic}}.',
        },
        {
          id: 'facts',
          kind: 'function',
          retries: 1,
          run: async () => {
            await factsGate.promise;
            return ['the moon pulls the sea'];
          },
        },
      ],
    },
    {
      id: 'assemble',
      kind: 'function',
      run: ({ steps }) => `${steps.draft} Facts: ${(steps.facts as string[]).join('; ')}.`,
    },
  ],
});

const flaky = defineWorkflow({
  name: 'flaky',
  description: 'Fetches from the archive, which is offline.',
  steps: [
    { id: 'prepare', kind: 'function', run: () => 'ready' },
    {
      id: 'route',
      kind: 'branch',
      if: () => true,
      steps: [
        {
          id: 'fetch',
          kind: 'function',
          retries: 1,
          retryDelayMs: 5,
          run: () => {
            throw new Error('the archive is offline');
          },
        },
      ],
      else: [{ id: 'cached', kind: 'function', run: () => 'from the cache' }],
    },
    { id: 'publish', kind: 'function', run: () => 'published' },
  ],
});

const launched: unknown[] = [];
const launchRocket = defineTool({
  name: 'launch_rocket',
  description: 'Launches a rocket.',
  inputSchema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
  permissions: ['danger:run'],
  handler: (_options, { input }) => {
    launched.push(input);
    return { launched: input.target };
  },
});

const launch = defineWorkflow({
  name: 'launch',
  description: 'Launches a rocket, once someone approves.',
  inputSchema: { type: 'object', properties: { target: { type: 'string', default: 'moon' } } },
  steps: [{ id: 'fire', kind: 'tool', tool: 'launch_rocket', input: { target: '{{input.target}}' } }],
});

const model = new ScriptedModel([], { modelId: 'writer-model' });
let kernel: Kernel;
let browser: Browser;
const servers: HubOS[] = [];

async function serve(options: { apiKeys?: string[] } = {}): Promise<{ url: string; hubos: HubOS }> {
  const hubos = new HubOS({ kernel, name: 'brief-hub', port: 0, rateLimit: false, ...options });
  hubos.registerAgent('writer', kernel.agent('writer'));
  servers.push(hubos);
  return { url: await hubos.serve(), hubos };
}

/** A fresh browser context (empty storage) on the page, recording the page's own errors. */
async function openPage(url: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  return { page, errors };
}

const text = (page: Page, selector: string) =>
  page
    .locator(selector)
    .allInnerTexts()
    .then((t) => t.join('\n'));

const step = (page: Page, id: string) => page.locator(`.step[data-step="${id}"]`);
const status = (page: Page, id: string) => step(page, id).getAttribute('data-status');
const badge = (page: Page, id: string) => step(page, id).locator('> .step-row > .badge').innerText();

/** Opens the Workflows view and picks one; resolves once its steps are drawn. */
async function pick(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Workflows', exact: true }).click();
  await page.locator(`.workflow-pick[data-workflow="${name}"]`).click();
  await expect.poll(() => text(page, '#workflow-name'), POLL).toBe(name);
  await expect.poll(() => page.locator('#workflow-run').isEnabled(), POLL).toBe(true);
}

it("has Debian's chromium installed (the system tests fail, never skip, without it)", () => {
  expect(existsSync(CHROMIUM), missingChromium(PAGE_TESTS)).toBe(true);
});

describe('the workflow view of the chat page', () => {
  beforeAll(async () => {
    kernel = await bootKernel({
      config: {
        permissions: { ask: ['danger:*'] },
        agents: { writer: { model, description: 'Writes short texts.' } },
      },
      plugins: [
        workflows([brief, flaky, launch]),
        {
          name: 'rocket-tools',
          apply(k) {
            k.hooks.registerTools.tap('rocket-tools', (registry) => registry.register(launchRocket));
          },
        },
      ],
    });
    browser = await launchChromium(PAGE_TESTS);
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map((hubos) => hubos.close()));
    await kernel?.close();
  });

  it('serves the view’s script as a module beside app.js', async () => {
    const { url } = await serve();
    const html = await (await fetch(`${url}/`)).text();
    expect(html).toContain('<script src="/ui/workflows.js" type="module"></script>');
    const script = await fetch(`${url}/ui/workflows.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('lists the workflows, draws the steps, runs one and shows each step live, then the output', async () => {
    const { url } = await serve();
    const { page, errors } = await openPage(`${url}/`);

    // The chat stays the first view; the switch appears because the server serves workflows.
    await expect.poll(() => page.locator('#views').isVisible(), POLL).toBe(true);
    expect(await page.locator('#message').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Workflows', exact: true }).click();
    expect(await page.locator('#message').isVisible()).toBe(false);
    await expect
      .poll(() => page.locator('.workflow-pick-name').allInnerTexts(), POLL)
      .toEqual(['brief', 'flaky', 'launch']);
    expect(await text(page, '.workflow-pick[data-workflow="brief"]')).toContain('3 steps');

    await pick(page, 'brief');
    expect(await page.locator('.workflow-pick[aria-current="true"]').getAttribute('data-workflow')).toBe(
      'brief',
    );
    expect(await text(page, '#workflow-description')).toBe(
      'Outlines a topic, drafts and checks it at once, then assembles the brief.',
    );
    // The tree: kinds, what each step runs, limits, and the parallel step's children inside it.
    expect(
      await page.locator('#workflow-steps > .step').evaluateAll((n) => n.map((s) => s.dataset.step)),
    ).toEqual(['outline', 'research', 'assemble']);
    expect(
      await step(page, 'research')
        .locator('.steps > .step')
        .evaluateAll((n) => n.map((s) => `${s.dataset.kind}:${s.dataset.step}`)),
    ).toEqual(['agent:draft', 'function:facts']);
    expect(await step(page, 'draft').locator('.target').innerText()).toBe('asks writer');
    expect(await step(page, 'facts').locator('.limits').innerText()).toBe('1 retry');
    expect(await step(page, 'research').locator('> .step-row .target').innerText()).toBe('2 steps at once');
    expect(await step(page, 'outline').locator('.step-description').innerText()).toBe(
      'Splits the topic into points.',
    );
    expect(await badge(page, 'outline')).toBe('pending');
    // The input is prefilled from the schema: every property, its default or an empty value.
    expect(JSON.parse(await page.locator('#workflow-input').inputValue())).toEqual({ topic: '', words: 50 });
    expect(await text(page, '#workflow-fields')).toContain(
      'topic string, required — What the brief is about.',
    );

    factsGate = deferred();
    model.push('Tides rise and fall twice a day.');
    await page.locator('#workflow-input').fill(JSON.stringify({ topic: 'tides', words: 20 }));
    await page.getByRole('button', { name: 'Run', exact: true }).click();

    // Mid-run: the agent's text streamed under its step, the gated step running, the last one pending.
    await expect.poll(() => status(page, 'facts'), POLL).toBe('running');
    await expect.poll(() => status(page, 'draft'), POLL).toBe('completed');
    expect(await step(page, 'draft').locator('.step-text').innerText()).toBe(
      'Tides rise and fall twice a day.',
    );
    expect(await status(page, 'outline')).toBe('completed');
    expect(await badge(page, 'outline')).toMatch(/^completed · \d+ ms$/);
    expect(JSON.parse(await step(page, 'outline').locator('.step-output').innerText())).toEqual({
      points: ['what tides are', 'why they matter'],
    });
    expect(await status(page, 'research')).toBe('running');
    expect(await badge(page, 'facts')).toBe('running…');
    expect(await status(page, 'assemble')).toBe('pending');
    expect(await page.locator('#workflow-stop').isVisible()).toBe(true);
    expect(await page.locator('#workflow-run').isVisible()).toBe(false);
    expect(model.requests.at(-1)!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'Write 20 words on tides.',
    });
    if (process.env.WORKFLOW_PAGE_SCREENSHOT)
      await page.screenshot({ path: process.env.WORKFLOW_PAGE_SCREENSHOT, fullPage: true });

    factsGate.resolve();
    await expect.poll(() => status(page, 'assemble'), POLL).toBe('completed');
    for (const id of ['outline', 'research', 'draft', 'facts', 'assemble'])
      expect(await status(page, id), id).toBe('completed');
    await expect.poll(() => text(page, '#workflow-outcome'), POLL).toMatch(/^Completed in \d+(\.\d)? m?s/);
    expect(await text(page, '#workflow-output')).toBe(
      'Tides rise and fall twice a day. Facts: the moon pulls the sea.',
    );
    expect(await text(page, '#workflow-status')).toBe('The workflow completed.');
    await expect.poll(() => page.locator('#workflow-run').isVisible(), POLL).toBe(true);
    if (process.env.WORKFLOW_PAGE_SCREENSHOT)
      await page.screenshot({
        path: process.env.WORKFLOW_PAGE_SCREENSHOT.replace(/(\.png)?$/, '-after.png'),
        fullPage: true,
      });

    // Picking an agent goes back to the chat.
    await page.locator('#agent').selectOption('writer');
    expect(await page.locator('#message').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    model.assertConsumed();
    await page.context().close();
  });

  it('shows the server’s message for input the schema refuses, and says when the JSON is broken', async () => {
    const { url } = await serve();
    const { page, errors } = await openPage(`${url}/?workflow=brief`);
    await expect.poll(() => page.locator('#workflow-run').isEnabled(), POLL).toBe(true);
    const runs = (await kernel.service('workflows').get('brief')!.listRuns()).length;

    await page.getByRole('button', { name: 'Run', exact: true }).click(); // topic is still ''
    const alert = page.locator('#workflow-error[role="alert"]');
    await expect
      .poll(() => alert.innerText().catch(() => ''), POLL)
      .toMatch(/^WORKFLOW_INPUT_INVALID: invalid input for workflow "brief": .*topic/);
    expect(await page.locator('#workflow-input').getAttribute('aria-invalid')).toBe('true');
    expect(await status(page, 'outline')).toBe('pending');
    expect(await page.locator('#workflow-result').isVisible()).toBe(false);

    await page.locator('#workflow-input').fill('{"topic": ');
    await page.locator('#workflow-input').press('Control+Enter');
    await expect.poll(() => alert.innerText(), POLL).toMatch(/^The input is not valid JSON: /);
    expect(await page.locator('#workflow-input:focus').count()).toBe(1);
    expect((await kernel.service('workflows').get('brief')!.listRuns()).length).toBe(runs);
    // The browser reports the 400 answer as a failed load; nothing else went wrong.
    expect(errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
    await page.context().close();
  });

  it('shows a failing step as failed with its retries and error, and what never ran', async () => {
    const { url } = await serve();
    const { page, errors } = await openPage(`${url}/`);
    await pick(page, 'flaky');
    expect(await step(page, 'route').locator('.arm').allInnerTexts()).toEqual([
      'If the condition holds:',
      'Else:',
    ]);
    expect(JSON.parse(await page.locator('#workflow-input').inputValue())).toEqual({});
    expect(await text(page, '#workflow-fields')).toBe('Any JSON object.');

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => status(page, 'fetch'), POLL).toBe('failed');
    expect(await step(page, 'fetch').locator('.step-error').innerText()).toBe(
      'STEP_FAILED: the archive is offline',
    );
    expect(await badge(page, 'fetch')).toMatch(/^failed · \d+ ms · 2 attempts$/);
    expect(await step(page, 'fetch').locator('.step-notes li').allInnerTexts()).toEqual([
      'Attempt 1 failed: STEP_FAILED: the archive is offline — retrying',
      'Attempt 2 failed: STEP_FAILED: the archive is offline',
    ]);
    await expect.poll(() => status(page, 'route'), POLL).toBe('failed');
    expect(await status(page, 'prepare')).toBe('completed');
    await expect.poll(() => status(page, 'publish'), POLL).toBe('skipped');
    expect(await status(page, 'cached')).toBe('skipped');
    expect(await badge(page, 'publish')).toBe('not run');
    await expect
      .poll(() => text(page, '#workflow-outcome'), POLL)
      .toBe('Failed at step fetch: STEP_FAILED: the archive is offline');
    expect(await page.locator('#workflow-output').isVisible()).toBe(false);
    expect(await page.locator('#workflow-result').getAttribute('data-status')).toBe('failed');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('stops a run from the page, which the server cancels', async () => {
    const { url, hubos } = await serve();
    const { page } = await openPage(`${url}/?workflow=brief`);
    await expect.poll(() => page.locator('#workflow-run').isEnabled(), POLL).toBe(true);
    factsGate = deferred(); // never opened: the run waits in `facts` until stopped
    model.push('A draft nobody reads.');
    await page.locator('#workflow-input').fill('{"topic": "storms"}');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => status(page, 'facts'), POLL).toBe('running');
    await expect.poll(() => status(page, 'draft'), POLL).toBe('completed');
    await expect.poll(() => hubos.runs.running, POLL).toBe(1);

    await page.locator('#workflow-stop').click();
    await expect
      .poll(() => text(page, '#workflow-outcome'), POLL)
      .toBe('Stopped: the server cancels the run.');
    expect(await badge(page, 'facts')).toBe('stopped');
    expect(await status(page, 'assemble')).toBe('pending');
    await expect.poll(() => hubos.runs.running, POLL).toBe(0);
    const [latest] = await kernel.service('workflows').get('brief')!.listRuns();
    expect(latest).toMatchObject({ status: 'cancelled', input: { topic: 'storms', words: 50 } });
    expect(await page.locator('#workflow-run:focus').count()).toBe(1);
    model.assertConsumed();
    await page.context().close();
  });

  it('asks once for the API key for agents and workflows, and approves a guarded tool step', async () => {
    const { url } = await serve({ apiKeys: ['flow-key-0123456789ab'] });
    const { page, errors } = await openPage(`${url}/`);
    await expect.poll(() => page.locator('#key-dialog').isVisible(), POLL).toBe(true);
    await page.locator('#key-input').fill('flow-key-0123456789ab');
    await page.locator('#key-input').press('Enter');
    await expect.poll(() => page.locator('#agent option').allInnerTexts(), POLL).toEqual(['writer']);
    await expect.poll(() => page.locator('#views').isVisible(), POLL).toBe(true);
    expect(await page.locator('#key-dialog').isVisible()).toBe(false);

    await pick(page, 'launch');
    expect(JSON.parse(await page.locator('#workflow-input').inputValue())).toEqual({ target: 'moon' });
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const prompt = step(page, 'fire').locator('.approval');
    await expect.poll(() => prompt.isVisible(), POLL).toBe(true);
    expect(await prompt.locator('h3').innerText()).toBe('Approval needed: launch_rocket');
    expect(await text(page, '#workflow-status')).toBe(
      'Step fire waits for your approval to run launch_rocket.',
    );
    expect(launched).toEqual([]);
    await prompt.getByRole('button', { name: 'Approve' }).click();

    await expect.poll(() => status(page, 'fire'), POLL).toBe('completed');
    expect(await prompt.locator('.outcome').innerText()).toBe('Approved: the tool runs.');
    expect(JSON.parse(await step(page, 'fire').locator('.step-output').innerText())).toEqual({
      launched: 'moon',
    });
    expect(launched).toEqual([{ target: 'moon' }]);
    await expect.poll(() => text(page, '#workflow-outcome'), POLL).toMatch(/^Completed/);
    expect(errors.filter((error) => !/status of 401/.test(error))).toEqual([]);
    await page.context().close();
  });
});
