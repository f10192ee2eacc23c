/**
 * The chat page (`GET /`) in headless Chromium against a real listening HubOS: pick an agent, chat,
 * watch text and tool calls stream in, stop a run, give an API key when the server asks, and approve
 * or deny the tool calls the permission policy asks about.
 * Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type Kernel, type Plugin, type Tool } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { CHROMIUM, launchChromium, missingChromium } from '../helpers/chromium.ts';

const PAGE_TESTS = 'the chat page tests';
const POLL = { timeout: 10_000, interval: 50 };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

/** The weather tool waits for the test to open this gate, so the page can be seen mid-run. */
let toolGate = deferred();

const getWeather = defineTool({
  name: 'get_weather',
  description: 'The weather in a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  handler: async (_options, { input }) => {
    await toolGate.promise;
    return { city: input.city, sky: 'sunny', temperatureC: 21 };
  },
});

const lookupStation = defineTool({
  name: 'lookup_station',
  description: 'Finds the nearest weather station.',
  inputSchema: { type: 'object', properties: { near: { type: 'string' } } },
  handler: () => {
    throw new Error('the station registry is offline');
  },
});

function toolsPlugin(tools: Tool[]): Plugin {
  return {
    name: 'chat-page-tools',
    apply(kernel) {
      kernel.hooks.registerTools.tap('chat-page-tools', (registry) => registry.registerBatch(tools));
    },
  };
}

const model = new ScriptedModel([], { modelId: 'weather-model' });
const echoModel = new ScriptedModel([], { modelId: 'echo-model' });
let kernel: Kernel;
let browser: Browser;
const servers: HubOS[] = [];
const kernels: Kernel[] = [];

async function serveAgents(options: { apiKeys?: string[] } = {}): Promise<string> {
  const hubos = new HubOS({ kernel, name: 'weather-hub', port: 0, rateLimit: false, ...options });
  hubos.registerAgent('weather', kernel.agent('weather'));
  hubos.registerAgent('echo', kernel.agent('echo'));
  servers.push(hubos);
  return hubos.serve();
}

/** A fresh browser context (empty storage) on the page, recording the page's own errors. */
async function openPage(url: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
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

async function sendMessage(page: Page, message: string): Promise<void> {
  await page.locator('#message').fill(message);
  await page.locator('#message').press('Enter');
}

it("has Debian's chromium installed (the system tests fail, never skip, without it)", () => {
  expect(existsSync(CHROMIUM), missingChromium(PAGE_TESTS)).toBe(true);
});

describe('the chat page', () => {
  beforeAll(async () => {
    kernel = await bootKernel({
      config: {
        agents: {
          weather: {
            model,
            description: 'Answers questions about the weather.',
            tools: ['get_weather', 'lookup_station'],
          },
          echo: { model: echoModel, description: 'Repeats what you say.' },
        },
      },
      plugins: [toolsPlugin([getWeather, lookupStation])],
    });
    browser = await launchChromium(PAGE_TESTS);
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map((hubos) => hubos.close()));
    await Promise.all([kernel, ...kernels].map((k) => k?.close()));
  });

  it('serves the page, its files and the security headers', async () => {
    const url = await serveAgents();
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="/ui/app.js" defer></script>');
    expect(html).toContain('<meta name="hubos-api" content="/api">');
    expect(html).toContain('<title>weather-hub · HubOS</title>');
    const script = await fetch(`${url}/ui/app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    const etag = script.headers.get('etag')!;
    expect((await fetch(`${url}/ui/app.js`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(`${url}/ui/style.css`)).headers.get('content-type')).toMatch(/^text\/css/);
    const missing = await fetch(`${url}/ui/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });

    // The page calls the API where this server mounts it.
    const prefixed = new HubOS({ kernel, port: 0, apiPrefix: '/v1' });
    servers.push(prefixed);
    const prefixedUrl = await prefixed.serve();
    expect(await (await fetch(`${prefixedUrl}/`)).text()).toContain('<meta name="hubos-api" content="/v1">');
  });

  it('lists the agents, streams the answer and shows tool calls with arguments and results', async () => {
    const url = await serveAgents();
    const { page, errors } = await openPage(`${url}/`);

    await expect.poll(() => page.locator('#agent option').allInnerTexts(), POLL).toEqual(['weather', 'echo']);
    expect(await text(page, '#agent-info')).toContain('Answers questions about the weather.');
    expect(await text(page, '#agent-model')).toBe('scripted:weather-model');
    expect(await page.locator('#agent-tools .tool-chip').allInnerTexts()).toEqual([
      'get_weather',
      'lookup_station',
    ]);
    await page.getByRole('button', { name: 'get_weather', exact: true }).click();
    expect(await text(page, '#agent-tool-about')).toBe('get_weather\nThe weather in a city.');

    await page.locator('#agent').selectOption('echo');
    await expect.poll(() => text(page, '#agent-model'), POLL).toBe('scripted:echo-model');
    expect(await text(page, '#agent-description')).toBe('Repeats what you say.');
    expect(await text(page, '#agent-tools')).toBe('none');
    await page.locator('#agent').selectOption('weather');
    await expect.poll(() => text(page, '#agent-model'), POLL).toBe('scripted:weather-model');

    toolGate = deferred();
    model.push(
      {
        text: 'Let me check the weather in Paris. ',
        toolCalls: [{ name: 'get_weather', input: { city: 'Paris' } }],
      },
      'It is sunny and 21 °C in Paris.',
    );
    await sendMessage(page, 'What is the weather in Paris?');

    // Mid-run: the user message, the first streamed text, and the tool call with its arguments, still running.
    await expect.poll(() => text(page, '.msg.user'), POLL).toBe('You\nWhat is the weather in Paris?');
    await expect
      .poll(() => text(page, '.msg.assistant .bubble'), POLL)
      .toBe('Let me check the weather in Paris. ');
    const call = page.locator('.tool').first();
    await expect.poll(() => call.getAttribute('data-status'), POLL).toBe('running');
    await expect.poll(() => call.locator('.preview').innerText(), POLL).toBe('{"city":"Paris"}');
    expect(await page.locator('#stop').isVisible()).toBe(true);
    expect(await page.locator('#send').isVisible()).toBe(false);
    await call.locator('summary').click();
    expect(await call.locator('.args').innerText()).toBe('{\n  "city": "Paris"\n}');
    expect(await call.locator('.result').innerText()).toBe('waiting…');
    if (process.env.CHAT_PAGE_SCREENSHOT)
      await page.screenshot({ path: process.env.CHAT_PAGE_SCREENSHOT, fullPage: true });

    toolGate.resolve();
    await expect.poll(() => call.getAttribute('data-status'), POLL).toBe('ok');
    expect(JSON.parse(await call.locator('.result').innerText())).toEqual({
      city: 'Paris',
      sky: 'sunny',
      temperatureC: 21,
    });
    expect(await call.locator('.badge').innerText()).toMatch(/^done · \d+ ms$/);
    await expect
      .poll(() => page.locator('.msg.assistant .bubble').allInnerTexts(), POLL)
      .toEqual(['Let me check the weather in Paris. ', 'It is sunny and 21 °C in Paris.']);
    await expect.poll(() => page.locator('#send').isVisible(), POLL).toBe(true);
    expect(await page.locator('.msg.assistant .bubble[aria-busy]').count()).toBe(0);

    // The same session continues: the model sees the earlier turn. A failing tool shows its error.
    model.push(
      { toolCalls: [{ name: 'lookup_station', input: { near: 'Paris' } }] },
      'The station is unknown.',
    );
    await sendMessage(page, 'Which station?');
    const failed = page.locator('.tool').nth(1);
    await expect.poll(() => failed.getAttribute('data-status'), POLL).toBe('error');
    expect(await failed.locator('.result').innerText()).toContain('the station registry is offline');
    expect(await failed.locator('details').getAttribute('open')).toBe('');
    await expect
      .poll(() => text(page, '.msg.assistant:last-child .bubble'), POLL)
      .toBe('The station is unknown.');
    const firstRun = model.requests.at(-4)!;
    const secondRun = model.requests.at(-2)!;
    expect(firstRun.messages.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(secondRun.messages.filter((m) => m.role === 'user')).toHaveLength(2);

    // A reload shows the same conversation (kept in sessionStorage) and keeps its session.
    await page.reload();
    await expect.poll(() => page.locator('.tool').count(), POLL).toBe(2);
    expect(await page.locator('.msg.user').count()).toBe(2);
    model.push('Still sunny.');
    await sendMessage(page, 'And now?');
    await expect.poll(() => text(page, '.msg.assistant:last-child .bubble'), POLL).toBe('Still sunny.');
    expect(model.requests.at(-1)!.messages.filter((m) => m.role === 'user')).toHaveLength(3);

    // A new chat starts an empty conversation with a new session.
    await page.locator('#new-chat').click();
    expect(await page.locator('#log > li').count()).toBe(0);
    await page.locator('#agent').selectOption('echo');
    echoModel.push('Echo: hi');
    await sendMessage(page, 'hi');
    await expect.poll(() => text(page, '.msg.assistant .bubble'), POLL).toBe('Echo: hi');
    await page.locator('#agent').selectOption('weather');
    model.push('Hello again.');
    await sendMessage(page, 'Hello');
    await expect.poll(() => text(page, '.msg.assistant .bubble'), POLL).toBe('Hello again.');
    expect(model.requests.at(-1)!.messages.filter((m) => m.role === 'user')).toHaveLength(1);

    expect(errors).toEqual([]);
    model.assertConsumed();
    echoModel.assertConsumed();
    await page.context().close();
  });

  it('shows run errors and stops a run, which the server then cancels', async () => {
    const url = await serveAgents();
    const hubos = servers.at(-1)!;
    const { page } = await openPage(`${url}/`);
    await expect.poll(() => page.locator('#message').isEnabled(), POLL).toBe(true);

    model.push({ error: 'the provider answered 500' });
    await sendMessage(page, 'Will it rain?');
    const alert = page.locator('#log .error[role="alert"]');
    await expect.poll(() => alert.innerText().catch(() => ''), POLL).toContain('MODEL_HTTP_ERROR:');
    expect(await alert.innerText()).toContain('the provider answered 500');

    model.push({ text: 'never sent', delayMs: 30_000 });
    await sendMessage(page, 'Take your time.');
    await expect.poll(() => hubos.runs.running, POLL).toBe(1);
    await page.locator('#stop').click();
    await expect.poll(() => text(page, '#log .note'), POLL).toContain('Stopped.');
    await expect.poll(() => hubos.runs.running, POLL).toBe(0);
    expect(await page.locator('#send').isVisible()).toBe(true);
    expect(await page.locator('#message:focus').count()).toBe(1);
    model.assertConsumed();
    await page.context().close();
  });

  it('asks for the API key when the server requires one, and works once given', async () => {
    const url = await serveAgents({ apiKeys: ['s3cret-key-0123456789'] });
    const { page } = await openPage(`${url}/`);
    const dialog = page.locator('#key-dialog');

    await expect.poll(() => dialog.isVisible(), POLL).toBe(true);
    expect(await text(page, '#key-reason')).toBe('This server asks for an API key.');
    await page.locator('#key-input').fill('wrong-key');
    await page.locator('#key-input').press('Enter');
    await expect.poll(() => text(page, '#key-reason'), POLL).toContain('refused the stored key');
    expect(await dialog.isVisible()).toBe(true);
    await page.locator('#key-input').fill('s3cret-key-0123456789');
    await page.getByRole('button', { name: 'Save' }).click();

    await expect.poll(() => page.locator('#agent option').allInnerTexts(), POLL).toEqual(['weather', 'echo']);
    expect(await dialog.isVisible()).toBe(false);
    expect(await page.evaluate(() => localStorage.getItem('hubos.apiKey'))).toBe('s3cret-key-0123456789');

    model.push('Sunny, with a key.');
    await sendMessage(page, 'Weather?');
    await expect.poll(() => text(page, '.msg.assistant .bubble'), POLL).toBe('Sunny, with a key.');
    model.assertConsumed();

    // A key that stops working: the run asks again; cancelling shows the 401 as an error.
    await page.evaluate(() => localStorage.setItem('hubos.apiKey', 'revoked'));
    await sendMessage(page, 'Again?');
    await expect.poll(() => dialog.isVisible(), POLL).toBe(true);
    await page.locator('#key-cancel').click();
    await expect.poll(() => text(page, '#log .error'), POLL).toContain('UNAUTHORIZED: invalid API key');
    await page.context().close();
  });

  it('asks before a guarded tool runs: Approve runs it, Deny tells the model why, errors and Stop show', async () => {
    const opsModel = new ScriptedModel([], { modelId: 'ops-model' });
    const launched: unknown[] = [];
    const launchRocket = defineTool({
      name: 'launch_rocket',
      description: 'Launches a rocket.',
      inputSchema: {
        type: 'object',
        properties: { target: { type: 'string' }, countdown: { type: 'integer', default: 10 } },
        required: ['target'],
        additionalProperties: false,
      },
      permissions: ['danger:run'],
      handler: (_options, { input }) => {
        launched.push(input);
        return { launched: input.target };
      },
    });
    const guarded = await bootKernel({
      config: {
        permissions: { ask: ['danger:*'] },
        agents: { ops: { model: opsModel, description: 'Runs risky errands.', tools: ['launch_rocket'] } },
      },
      plugins: [toolsPlugin([launchRocket])],
    });
    kernels.push(guarded);
    const hubos = new HubOS({
      kernel: guarded,
      name: 'ops-hub',
      port: 0,
      rateLimit: false,
      apiKeys: ['ops-key-0123456789abcd'],
    });
    hubos.registerAgent('ops', guarded.agent('ops'));
    servers.push(hubos);
    const url = await hubos.serve();
    const { page, errors } = await openPage(`${url}/`);
    await expect.poll(() => page.locator('#key-dialog').isVisible(), POLL).toBe(true);
    await page.locator('#key-input').fill('ops-key-0123456789abcd');
    await page.locator('#key-input').press('Enter');
    await expect.poll(() => page.locator('#message').isEnabled(), POLL).toBe(true);
    const decisions: { url: string; authorization?: string; body: unknown }[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/approvals/'))
        decisions.push({
          url: new URL(request.url()).pathname,
          authorization: request.headers().authorization,
          body: request.postDataJSON(),
        });
    });

    // Approve, from the keyboard: the prompt takes the focus, Tab reaches the buttons.
    opsModel.push(
      {
        text: 'Launching. ',
        toolCalls: [{ name: 'launch_rocket', input: { target: 'moon' }, id: 'call-1' }],
      },
      'The rocket is on its way to the moon.',
    );
    await sendMessage(page, 'Launch a rocket to the moon');
    const first = page.locator('.tool').nth(0);
    const prompt = first.locator('.approval');
    await expect.poll(() => prompt.isVisible(), POLL).toBe(true);
    expect(await first.getAttribute('data-status')).toBe('running');
    expect(await first.locator('.badge').innerText()).toBe('needs approval');
    expect(await prompt.locator('h3').innerText()).toBe('Approval needed: launch_rocket');
    expect(JSON.parse(await prompt.locator('pre').innerText())).toEqual({ target: 'moon', countdown: 10 });
    const facts = await prompt.locator('dl').innerText();
    expect(facts).toContain('danger:run');
    expect(facts).toContain("ask 'danger:*'");
    const [asked] = await guarded.approvals.list();
    expect(asked).toMatchObject({ callId: 'call-1', tool: 'launch_rocket', status: 'pending' });
    expect(await prompt.locator('time').getAttribute('datetime')).toBe(asked!.expiresAt);
    expect(await prompt.locator('.left').innerText()).toMatch(/^\(in [45]:\d\d\)$/);
    expect(await text(page, '#status')).toBe('ops waits for your approval to run launch_rocket.');
    expect(await page.locator('.approval:focus').count()).toBe(1);
    if (process.env.CHAT_PAGE_APPROVAL_SCREENSHOT)
      await page.screenshot({ path: process.env.CHAT_PAGE_APPROVAL_SCREENSHOT, fullPage: true });
    await page.keyboard.press('Tab'); // the input, scrollable
    await page.keyboard.press('Tab'); // the reason
    await page.keyboard.press('Tab');
    expect(await prompt.locator('button:focus').innerText()).toBe('Approve');
    expect(launched).toEqual([]);
    await page.keyboard.press('Enter');

    await expect.poll(() => first.getAttribute('data-status'), POLL).toBe('ok');
    expect(await prompt.locator('.outcome').innerText()).toBe('Approved: the tool runs.');
    expect(await prompt.getByRole('button', { name: 'Approve' }).isVisible()).toBe(false);
    expect(JSON.parse((await first.locator('.result').textContent())!)).toEqual({ launched: 'moon' });
    expect(launched).toEqual([{ target: 'moon', countdown: 10 }]);
    await expect
      .poll(() => text(page, '.msg.assistant:last-child .bubble'), POLL)
      .toBe('The rocket is on its way to the moon.');
    expect(decisions).toEqual([
      {
        url: `/api/runs/${asked!.runId}/approvals/call-1`,
        authorization: 'Bearer ops-key-0123456789abcd',
        body: { approved: true },
      },
    ]);
    expect(await page.locator('#key-dialog').isVisible()).toBe(false);

    // Deny, with a reason: the tool does not run and the model reads why.
    opsModel.push(
      { toolCalls: [{ name: 'launch_rocket', input: { target: 'mars' }, id: 'call-2' }] },
      'Understood: no rocket to Mars.',
    );
    await sendMessage(page, 'And one to Mars');
    const second = page.locator('.tool').nth(1);
    await expect.poll(() => second.locator('.approval').isVisible(), POLL).toBe(true);
    await second.getByLabel('Reason for denying').fill('too far');
    await second.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => second.getAttribute('data-status'), POLL).toBe('error');
    expect(await second.locator('.approval .outcome').innerText()).toBe(
      'Denied: the tool was not run. Reason: too far',
    );
    expect(await second.locator('.badge').innerText()).toBe('denied');
    expect(await second.locator('.approval h3').innerText()).toBe('Approval: launch_rocket');
    expect(await second.locator('.result').innerText()).toContain('denied by the user: too far');
    await expect
      .poll(() => text(page, '.msg.assistant:last-child .bubble'), POLL)
      .toBe('Understood: no rocket to Mars.');
    expect(launched).toHaveLength(1);
    expect(JSON.stringify(opsModel.requests.at(-1)!.messages)).toContain('denied by the user: too far');
    expect(decisions.at(-1)).toMatchObject({ body: { approved: false, reason: 'too far' } });

    // Decided elsewhere first: the server answers 409, which the prompt shows with the outcome.
    await page.route('**/approvals/**', async (route) => {
      const [, runId, callId] = /\/runs\/([^/]+)\/approvals\/([^/?]+)/.exec(route.request().url())!;
      await guarded.approvals!.decide(runId!, callId!, {
        approved: false,
        reason: 'decided on another screen',
      });
      await route.continue();
    });
    opsModel.push(
      { toolCalls: [{ name: 'launch_rocket', input: { target: 'venus' }, id: 'call-3' }] },
      'Someone else said no.',
    );
    await sendMessage(page, 'Venus?');
    const third = page.locator('.tool').nth(2);
    await expect.poll(() => third.locator('.approval').isVisible(), POLL).toBe(true);
    await third.getByRole('button', { name: 'Approve' }).click();
    const conflict = third.locator('.approval-error[role="alert"]');
    await expect
      .poll(() => conflict.innerText().catch(() => ''), POLL)
      .toMatch(/^APPROVAL_DECIDED: .*already denied/);
    expect(await page.locator('.approval-error:focus').count()).toBe(1);
    await expect
      .poll(() => third.locator('.approval .outcome').innerText(), POLL)
      .toBe('Denied: the tool was not run. Reason: decided on another screen');
    await expect
      .poll(() => text(page, '.msg.assistant:last-child .bubble'), POLL)
      .toBe('Someone else said no.');
    await page.unroute('**/approvals/**');

    // Stopping the run while the call waits cancels it on the server.
    opsModel.push({ toolCalls: [{ name: 'launch_rocket', input: { target: 'sun' }, id: 'call-4' }] });
    await sendMessage(page, 'The sun, then');
    const fourth = page.locator('.tool').nth(3);
    await expect.poll(() => fourth.locator('.approval').isVisible(), POLL).toBe(true);
    await page.locator('#stop').click();
    await expect
      .poll(() => fourth.locator('.approval .outcome').innerText(), POLL)
      .toBe('Not decided: the run ended while the call waited.');
    expect(await fourth.getByRole('button', { name: 'Deny' }).isVisible()).toBe(false);
    expect(await fourth.locator('.badge').innerText()).toBe('not decided');
    await expect.poll(() => hubos.runs.running, POLL).toBe(0);
    await expect
      .poll(async () => (await guarded.approvals!.list(undefined, { all: true })).map((a) => a.status), POLL)
      .toEqual(['approved', 'denied', 'denied', 'cancelled']);
    expect(launched).toHaveLength(1);

    // A reload shows the decided prompts, without buttons.
    await page.reload();
    await expect.poll(() => page.locator('.approval').count(), POLL).toBe(4);
    expect(await page.locator('.approval button:visible').count()).toBe(0);
    expect(await page.locator('.approval .outcome').allInnerTexts()).toEqual([
      'Approved: the tool runs.',
      'Denied: the tool was not run. Reason: too far',
      'Denied: the tool was not run. Reason: decided on another screen',
      'Not decided: the run ended while the call waited.',
    ]);

    if (process.env.CHAT_PAGE_APPROVAL_SCREENSHOT)
      await page.screenshot({
        path: process.env.CHAT_PAGE_APPROVAL_SCREENSHOT.replace(/(\.png)?$/, '-after.png'),
      });

    // The browser reports the 401 and 409 answers as failed loads; nothing else went wrong.
    expect(errors.filter((error) => !/status of (401|409)/.test(error))).toEqual([]);
    opsModel.assertConsumed();
    await page.context().close();
  });
});
