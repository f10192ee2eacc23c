/**
 * The studio of the page in headless Chromium against a real listening HubOS with ScriptedModel
 * agents: the Runs view (filters, pages, live refresh, the usage chart), a run's trace (model and
 * tool calls, a sub-agent's track, payloads on demand (a 1 MB one cut), a workflow's steps, a live
 * run growing, an approval decided in the page), a Stars team's members, messages and tracks, run
 * again on another model and the comparison of two runs, and the Cosmos agents. Each key sees its
 * own runs only; forged addresses say "No run". With HUBOS_SCREENSHOTS=<dir> set it saves the screens there (docs/public/studio/).
 * Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, HubosError, type Kernel } from '../../core/index.ts';
import cosmos from '../../plugins/cosmos/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import stars from '../../plugins/stars/index.ts';
import subagent from '../../plugins/subagent/index.ts';
import workflows, { defineWorkflow } from '../../plugins/workflows/index.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { CHROMIUM, launchChromium, missingChromium } from '../helpers/chromium.ts';

const PAGE_TESTS = 'the studio page tests';
const POLL = { timeout: 10_000, interval: 50 };
const SHOTS = process.env.HUBOS_SCREENSHOTS;

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdefgh';
const ADMIN = 'root-key-0123456789abcdefg';

/** Markup in a run's input and a tool's output: the page must show it as text, never run it. */
const MARKUP = '<img src=x onerror="window.pwned=1"><b>bold</b>';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up.',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  handler: (_options, { input }) => {
    if (input.word === 'missing') throw new Error('no such word');
    return { meaning: `${input.word} means ${MARKUP}` };
  },
});

/** A tool answering over 1 MB: its payload is cut on the server and the page stays quick. */
const BIG_OUTPUT_CHARS = 1_200_000;
const dump = defineTool({
  name: 'dump',
  description: 'Dumps a big log.',
  inputSchema: { type: 'object', properties: {} },
  handler: () => `${MARKUP}${'log line\n'.repeat(BIG_OUTPUT_CHARS / 9)}`,
});

const launchRocket = defineTool({
  name: 'launch_rocket',
  description: 'Launches a rocket.',
  inputSchema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
  permissions: ['danger:run'],
  handler: (_options, { input }) => ({ launched: input.target }),
});

const brief = defineWorkflow({
  name: 'brief',
  description: 'Outlines, then drafts in passes.',
  steps: [
    { id: 'outline', kind: 'function', run: () => ({ points: ['tides', 'moon'] }) },
    {
      id: 'passes',
      kind: 'loop',
      max: 2,
      while: () => true,
      steps: [{ id: 'draft', kind: 'function', run: () => 'a draft' }],
    },
    { id: 'publish', kind: 'function', run: () => 'published' },
  ],
});

const usage = { inputTokens: 1200, outputTokens: 300, cachedInputTokens: 200 };
const helperModel = new ScriptedModel([], { modelId: 'gpt-4.1-mini' });
const leadModel = new ScriptedModel([], { modelId: 'lead-model' });
const workerModel = new ScriptedModel([], { modelId: 'worker-model' });
const writerModel = new ScriptedModel([], { modelId: 'writer-model' });
// A fallback chain whose first model is down: its runs fail over to the second.
const downModel = new ScriptedModel([], { modelId: 'down-model' });
const backupModel = new ScriptedModel([], { modelId: 'backup-model' });
let kernel: Kernel;
let browser: Browser;
let url: string;
let hubos: HubOS;

async function call(path: string, key: string, init: RequestInit = {}) {
  const response = await fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Runs `helper` to its end (or, async, starts it): the run's id. */
async function run(key: string, input: string, async = false): Promise<string> {
  const answer = await call(`/api/agents/helper/run${async ? '?async=true' : ''}`, key, {
    method: 'POST',
    body: JSON.stringify({ input }),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(async ? 202 : 200);
  return answer.body.runId;
}

/**
 * Runs the Stars team `crew` as `key` on `task`: its lead hands crew-w1 `delegated`, the worker
 * answers `found`, the lead sums up with `summary`. The team run's id.
 */
async function teamRun(
  key: string,
  { task, delegated, found, summary }: { task: string; delegated: string; found: string; summary: string },
): Promise<string> {
  leadModel.push(
    { toolCalls: [{ name: 'stars_delegate', input: { tasks: [{ worker: 'crew-w1', task: delegated }] } }] },
    summary,
  );
  workerModel.push(found);
  const answer = await call('/api/stars/crew/run', key, { method: 'POST', body: JSON.stringify({ task }) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const [team] = (await call('/api/runs?limit=1&agent=stars:crew', key)).body.runs;
  return team.id;
}

/** A fresh browser context holding `key`, on the page, recording the page's own errors. */
async function openPage(path: string, key: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript((stored) => localStorage.setItem('hubos.apiKey', stored), key);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A 404 (another key's run, a forged address) is logged by the browser; the page says "No run".
    if (message.type() === 'error' && !/status of 40[34]/.test(message.text()))
      errors.push(`console: ${message.text()}`);
  });
  await page.goto(`${url}/${path}`);
  return { page, errors };
}

async function shoot(page: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  // The page scrolls inside <main>: a window as tall as its content (up to 2,400 px) shows all of it.
  const size = page.viewportSize()!;
  const extra = await page
    .locator('main')
    .evaluate((main) => main.scrollHeight - main.clientHeight)
    .catch(() => 0);
  await page.setViewportSize({ width: size.width, height: Math.min(2400, size.height + Math.max(0, extra)) });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  await page.setViewportSize(size);
}

/** What `locator` says, or '' while it is not on the page: for polling until it shows. */
const textOf = (locator: Locator) => () => locator.innerText().catch(() => '');
const rowIds = (page: Page) =>
  page.locator('#runs-rows tr').evaluateAll((rows) => rows.map((row) => row.dataset.run));
const traceRows = (page: Page) =>
  page
    .locator('#trace .trace-row')
    .evaluateAll((rows) =>
      rows.map((row) => `${row.dataset.kind}:${row.querySelector('.trace-name')?.textContent}`),
    );
it("has Debian's chromium installed (the system tests fail, never skip, without it)", () => {
  expect(existsSync(CHROMIUM), missingChromium(PAGE_TESTS)).toBe(true);
});

describe('the studio of the page', () => {
  beforeAll(async () => {
    kernel = await bootKernel({
      config: {
        permissions: { ask: ['danger:*'] },
        pricing: { 'scripted:gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 } },
        agents: {
          helper: {
            model: helperModel,
            description: 'Answers with tools.',
            tools: ['lookup', 'launch_rocket', 'dump', 'task'],
          },
          writer: { model: writerModel, description: 'Writes.' },
          steady: { model: [downModel, backupModel], description: 'Fails over.' },
          lead: { model: leadModel, description: 'Plans and delegates.', instructions: 'Lead.' },
          w1: { model: workerModel, description: 'Researches.', instructions: 'Research.' },
        },
      },
      plugins: [
        cosmos(),
        subagent(),
        stars({
          crew: {
            members: [
              { agent: 'lead', role: 'leader' },
              { agent: 'w1', role: 'worker' },
            ],
          },
        }),
        workflows([brief]),
        {
          name: 'studio-tools',
          apply(k) {
            k.hooks.registerTools.tap('studio-tools', (registry) => {
              registry.register(lookup);
              registry.register(launchRocket);
              registry.register(dump);
            });
          },
        },
      ],
    });
    hubos = new HubOS({
      kernel,
      name: 'studio-hub',
      port: 0,
      rateLimit: false,
      apiKeys: [
        { key: ALICE, id: 'alice' },
        { key: BOB, id: 'bob' },
        { key: ADMIN, id: 'root', admin: true },
      ],
    });
    hubos.registerAgent('helper', kernel.agent('helper'));
    // A second served model: run again may switch a run to it.
    hubos.registerAgent('writer', kernel.agent('writer'));
    hubos.registerAgent('steady', kernel.agent('steady'));
    url = await hubos.serve();
    browser = await launchChromium(PAGE_TESTS);
  });

  afterAll(async () => {
    await browser?.close();
    await hubos?.close();
    await kernel?.close();
  });

  it('serves the studio’s modules and style beside app.js', async () => {
    const html = await (await fetch(`${url}/`)).text();
    expect(html).toContain('<script src="/ui/studio.js" type="module"></script>');
    expect(html).toContain('<meta name="hubos-cosmos" content="/api/cosmos/agents">');
    for (const file of [
      'studio.js',
      'trace.js',
      'runs-view.js',
      'run-page.js',
      'session-view.js',
      'live-trace.js',
      'studio.css',
    ]) {
      const answer = await fetch(`${url}/ui/${file}`);
      expect(answer.status, file).toBe(200);
    }
  });

  it('lists a key’s runs newest first, filters them, pages through them and refreshes live', async () => {
    helperModel.push(...Array.from({ length: 26 }, (_, i) => ({ text: `answer ${i}`, usage })));
    helperModel.push({ error: 'the model is away' });
    const ids: string[] = [];
    for (let i = 0; i < 26; i++) ids.push(await run(ALICE, i === 3 ? `question ${MARKUP}` : `question ${i}`));
    const failing = await call('/api/agents/helper/run', ALICE, {
      method: 'POST',
      body: JSON.stringify({ input: 'this one fails' }),
    });
    expect(failing.status).toBe(502);
    const [failed] = (await call('/api/runs?limit=1', ALICE)).body.runs;
    helperModel.push('bob’s answer');
    const bobs = await run(BOB, 'bob asks');

    const { page, errors } = await openPage('', ALICE);
    await page.getByRole('button', { name: 'Runs', exact: true }).click();
    expect(page.url()).toMatch(/#\/runs$/);
    await expect.poll(() => page.locator('#runs-rows tr').count(), POLL).toBe(25);
    // Newest first; Bob's run is not Alice's to see.
    const first = await rowIds(page);
    expect(first[0]).toBe(failed.id);
    expect(first.slice(1)).toEqual(ids.slice(-24).reverse());
    expect(first).not.toContain(bobs);
    expect(await page.locator(`tr[data-run="${failed.id}"] .badge`).innerText()).toBe('failed');
    expect(await page.locator('#runs-page').innerText()).toBe('Page 1 · 25 runs');

    await page.locator('#runs-older').click();
    await expect.poll(() => rowIds(page), POLL).toEqual([ids[1], ids[0]]);
    expect(await page.locator('#runs-older').isDisabled()).toBe(true);
    await page.locator('#runs-newer').click();
    await expect.poll(() => page.locator('#runs-rows tr').count(), POLL).toBe(25);

    // The markup of an input is text on the page.
    await page.locator('#runs-q').fill('<img');
    await expect.poll(() => rowIds(page), POLL).toEqual([ids[3]]);
    expect(await page.locator(`tr[data-run="${ids[3]}"] .runs-input`).innerText()).toBe(`question ${MARKUP}`);
    expect(await page.locator('#runs-rows img').count()).toBe(0);
    await page.locator('#runs-q').fill('');
    await page.locator('#runs-status').selectOption('failed');
    await expect.poll(() => rowIds(page), POLL).toEqual([failed.id]);
    await page.locator('#runs-status').selectOption('');
    await page.locator('#runs-agent').fill('nobody');
    await expect.poll(() => page.locator('#runs-table + .empty').isVisible(), POLL).toBe(true);
    await page.locator('#runs-agent').fill('helper');
    await expect.poll(() => page.locator('#runs-rows tr').count(), POLL).toBe(25);

    // Live: a run started elsewhere shows up on the first page without a reload.
    helperModel.push({ text: 'late answer', usage });
    const late = await run(ALICE, 'a late question');
    await expect.poll(async () => (await rowIds(page))[0], POLL).toBe(late);
    // The refresh keeps the keyboard where it was.
    await page.locator(`tr[data-run="${ids[25]}"] a`).focus();
    helperModel.push({ text: 'later answer', usage });
    const later = await run(ALICE, 'a later question');
    await expect.poll(async () => (await rowIds(page))[0], POLL).toBe(later);
    expect(await page.locator(`tr[data-run="${ids[25]}"] a:focus`).count()).toBe(1);
    await shoot(page, 'runs');

    // The usage chart: the hour buckets of the last day, with the tokens and cost in words.
    // 24 hours end to end touch 25 hour buckets (the first and the last in part).
    await expect.poll(() => page.locator('#usage-chart .usage-bucket').count(), POLL).toBe(25);
    expect(await page.locator('#usage-chart .usage-summary').innerText()).toMatch(
      /^\d+(\.\d)?k tokens in, \d+(\.\d)?k out, \d+ runs, \$\d+\.\d+ over the last 24 hours$/,
    );
    expect(await page.locator('#usage-chart svg').getAttribute('aria-label')).toMatch(/^Tokens per hour: /);
    await page.locator('#usage-bucket').selectOption('day');
    await expect
      .poll(() => page.locator('#usage-chart .usage-bucket').count(), POLL)
      .toBeGreaterThanOrEqual(30);

    // Bob's key sees Bob's run alone, and Alice's run's page is no run for it.
    const bob = await openPage('#/runs', BOB);
    await expect.poll(() => rowIds(bob.page), POLL).toEqual([bobs]);
    await bob.page.goto(`${url}/#/runs/${ids[0]}`);
    await expect
      .poll(textOf(bob.page.locator('#run-view .error')), POLL)
      .toBe(`No run "${ids[0]}" for this key.`);
    // A broken address opens the list; an id that is no run says so, as text.
    await bob.page.goto(`${url}/#/runs/%zz`);
    await expect.poll(() => bob.page.locator('#runs-view').isVisible(), POLL).toBe(true);
    await bob.page.goto(`${url}/#/runs/${encodeURIComponent('<b>x</b>')}`);
    await expect
      .poll(textOf(bob.page.locator('#run-view .error')), POLL)
      .toMatch(/^No run "<b>x<\/b>" for this key\.$|^RUN_/);
    expect(await bob.page.locator('#run-view b').count()).toBe(0);
    // An admin key sees every key's runs.
    const admin = await openPage('#/runs', ADMIN);
    await expect.poll(() => rowIds(admin.page), POLL).toContain(bobs);
    expect(await rowIds(admin.page)).toContain(late);
    await admin.page.context().close();
    expect(await page.evaluate(() => 'pwned' in globalThis)).toBe(false);
    expect(errors).toEqual([]);
    await page.context().close();
    await bob.page.context().close();
  });

  it('draws a run’s trace: model and tool calls on one axis, previews, errors in red, payloads on demand', async () => {
    helperModel.push(
      {
        toolCalls: [
          { name: 'lookup', input: { word: 'tide' } },
          { name: 'lookup', input: { word: 'missing' } },
        ],
        usage,
      },
      { text: `Tides come from the moon. ${MARKUP}`, usage },
    );
    const id = await run(ALICE, 'what are tides?');
    const { page, errors } = await openPage('', ALICE);
    await page.getByRole('button', { name: 'Runs', exact: true }).click();
    await page.locator(`tr[data-run="${id}"] a`).click();
    expect(page.url()).toMatch(new RegExp(`#/runs/${id}$`));
    await expect
      .poll(() => traceRows(page), POLL)
      .toEqual(['model:scripted:gpt-4.1-mini', 'tool:lookup', 'tool:lookup', 'model:scripted:gpt-4.1-mini']);
    const rows = page.locator('#trace .trace-row');
    expect(await rows.nth(0).locator('.trace-facts').innerText()).toMatch(
      /^TTFT \d+ ms · 1\.2k in · 300 out · 200 cached(?: · \$[\d.]+)? · tool-calls$/,
    );
    // The two tool calls of one model step, in the order they ended: the failing one first.
    const found = rows.filter({ hasText: 'tide means' });
    const missing = page
      .locator('#trace .trace-row[data-kind="tool"]')
      .filter({ hasText: '{"word":"missing"}' });
    expect(await found.locator('.trace-preview').innerText()).toContain('{"word":"tide"}');
    expect(await found.locator('.trace-preview').innerText()).toContain('tide means <img src=x onerror=');
    expect(await found.getAttribute('data-status')).toBe('ok');
    expect(await missing.getAttribute('data-status')).toBe('error');
    expect(await missing.locator('.trace-error').innerText()).toMatch(/no such word/);
    expect(await page.locator('.run-tokens').innerText()).toBe('2.4k in · 600 out · 400 cached');
    expect(await page.locator('.run-cost').innerText()).toMatch(/^\$\d/);
    expect(await page.locator('.run-answer').innerText()).toBe(`Tides come from the moon. ${MARKUP}`);
    // Bars sit on one axis: each bar's place is a share of the run's time, none past its end.
    const bars = await rows.locator('.trace-bar').evaluateAll((all) =>
      all.map((bar) => ({
        at: Number.parseFloat(bar.style.getPropertyValue('--at')),
        span: Number.parseFloat(bar.style.getPropertyValue('--span')),
      })),
    );
    for (const { at, span } of bars) expect(at + span).toBeLessThanOrEqual(100.001);
    expect(bars[3]!.at).toBeGreaterThanOrEqual(bars[0]!.at);

    // A step opens its payload from the keyboard: the tool call's full input and output.
    await found.locator('.trace-open').focus();
    await page.keyboard.press('Enter');
    const detail = found.locator('.trace-detail');
    await expect.poll(() => detail.isVisible(), POLL).toBe(true);
    await expect.poll(() => detail.innerText(), POLL).toContain('"meaning": "tide means');
    expect(await found.locator('.trace-open').getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator('#trace img, #run-view img').count()).toBe(0);
    expect(await page.locator('#run-view').innerText()).not.toContain('undefined');
    await shoot(page, 'trace');
    if (SHOTS) {
      await page.emulateMedia({ colorScheme: 'dark' });
      await shoot(page, 'trace-dark');
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a model call that failed over: the model that answered, the failover among its facts, each attempt in its detail', async () => {
    downModel.push({
      error: new HubosError('MODEL_HTTP_ERROR', 'down-model is overloaded', { details: { status: 503 } }),
    });
    backupModel.push({ text: 'The backup answers.', usage });
    const answer = await call('/api/agents/steady/run', ALICE, { method: 'POST', body: '{"input":"hi"}' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { page, errors } = await openPage(`#/runs/${answer.body.runId}`, ALICE);
    await expect.poll(() => traceRows(page), POLL).toEqual(['model:scripted:backup-model']);
    const row = page.locator('#trace .trace-row').first();
    expect(await row.locator('.trace-facts').innerText()).toContain(
      'failed over from scripted:down-model to scripted:backup-model',
    );
    await row.locator('.trace-open').click();
    await expect
      .poll(() => row.locator('.trace-detail').innerText(), POLL)
      .toContain(
        'scripted:down-model attempt 1: MODEL_HTTP_ERROR 503: down-model is overloaded — failed over to scripted:backup-model',
      );
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('nests a workflow’s loop passes under the loop in the trace', async () => {
    const answer = await call('/api/workflows/brief/run', ALICE, { method: 'POST', body: '{"input":{}}' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [latest] = (await call('/api/runs?limit=1&agent=workflow:brief', ALICE)).body.runs;
    const { page, errors } = await openPage(`#/runs/${latest.id}`, ALICE);
    await expect.poll(() => traceRows(page), POLL).toContain('step:publish');
    const names = await traceRows(page);
    expect(names).toEqual(
      expect.arrayContaining(['step:outline', 'step:passes[0]/draft', 'step:passes[1]/draft']),
    );
    const depth = (name: string) =>
      page
        .locator('#trace .trace-row', { has: page.locator('.trace-name', { hasText: name }) })
        .first()
        .evaluate((row) => row.style.getPropertyValue('--depth') || '0');
    expect(await depth('outline')).toBe('0');
    expect(await depth('passes[1]/draft')).toBe('1');
    expect(await depth('passes[1]?')).toBe('1');
    // In the order they started: the loop before its passes, though it ended after them.
    expect(names.indexOf('step:passes')).toBeLessThan(names.indexOf('step:passes[0]/draft'));
    expect(names.indexOf('step:publish')).toBe(names.length - 1);
    expect(await page.locator('.again-form').count()).toBe(0); // a workflow's run is not run again from here
    expect(await page.locator('#run-view').innerText()).not.toContain('undefined');
    await shoot(page, 'workflow');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('grows a running run’s trace live from its events, then shows the recorded steps', async () => {
    const gate = deferred();
    helperModel.push({ toolCalls: [{ name: 'lookup', input: { word: 'moon' } }], usage }, async () => {
      await gate.promise;
      return { text: 'The moon pulls.', usage };
    });
    const id = await run(ALICE, 'live question', true);
    const { page, errors } = await openPage(`#/runs/${id}`, ALICE);
    // Mid-run: the first model call and the tool call done, the second model call running.
    await expect
      .poll(() => traceRows(page), POLL)
      .toEqual(['model:scripted:gpt-4.1-mini', 'tool:lookup', 'model:scripted:gpt-4.1-mini']);
    await expect
      .poll(() => page.locator('#trace .trace-row').nth(2).getAttribute('data-status'), POLL)
      .toBe('running');
    expect(await page.locator('#trace .trace-row').nth(1).locator('.trace-preview').innerText()).toContain(
      'moon means',
    );
    expect(await page.locator('#run-view [role="status"]').first().innerText()).toBe(
      'Running: the trace grows as the run goes.',
    );
    await shoot(page, 'live');
    gate.resolve();
    await expect.poll(() => page.locator('.run-status').innerText(), POLL).toBe('completed');
    await expect.poll(() => page.locator('#trace .trace-row[data-status="running"]').count(), POLL).toBe(0);
    expect(await traceRows(page)).toEqual([
      'model:scripted:gpt-4.1-mini',
      'tool:lookup',
      'model:scripted:gpt-4.1-mini',
    ]);
    expect(await page.locator('.run-answer').innerText()).toBe('The moon pulls.');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('approves a waiting tool call from the trace, and the decision stays on the recorded trace', async () => {
    helperModel.push(
      { toolCalls: [{ name: 'launch_rocket', input: { target: 'moon' } }], usage },
      { text: 'Launched.', usage },
    );
    const id = await run(ALICE, 'launch it', true);
    const { page, errors } = await openPage(`#/runs/${id}`, ALICE);
    const prompt = page.locator('#trace .trace-row[data-kind="tool"] .approval');
    await expect.poll(() => prompt.isVisible(), POLL).toBe(true);
    expect(await prompt.locator('h3').textContent()).toBe('Approval needed: launch_rocket');
    await shoot(page, 'approval');
    await prompt.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('.run-status').innerText(), POLL).toBe('completed');
    const tool = page.locator('#trace .trace-row[data-kind="tool"]');
    // The recorded step says what the policy said, and who decided when.
    await expect
      .poll(() => tool.locator('.trace-facts').innerText(), POLL)
      .toMatch(/^ask \(danger:\*\) · approved by alice at /);
    expect(await tool.locator('.trace-preview').innerText()).toContain('{"launched":"moon"}');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a Stars team run’s members and roles and the messages between them', async () => {
    const team = await teamRun(ADMIN, {
      task: 'Research tides.',
      delegated: `Find facts ${MARKUP}`,
      found: 'Fact: tides follow the moon.',
      summary: 'The team found the facts.',
    });
    const { page, errors } = await openPage(`#/runs/${team}`, ADMIN);
    await expect
      .poll(
        () =>
          page
            .locator('.team-members li')
            .evaluateAll((n) => n.map((li) => `${li.dataset.member}:${li.dataset.role}`)),
        POLL,
      )
      .toEqual(['crew-lead:leader', 'crew-w1:worker']);
    await expect.poll(() => page.locator('.team-messages li').count(), POLL).toBeGreaterThan(0);
    expect(await page.locator('.team-messages').innerText()).toContain('Fact: tides follow the moon.');
    expect(await page.locator('.team img').count()).toBe(0);
    expect(await page.locator('.again-form').count()).toBe(0);
    // The trace: each member's steps on a track of its own, under its name and role.
    const tracks = () =>
      page.locator('#trace .trace-group[data-track-kind="member"]').evaluateAll((groups) =>
        groups.map((group) => ({
          label: [...group.querySelectorAll(':scope > .trace-group-head :is(.trace-name, .trace-turn)')]
            .map((part) => part.textContent)
            .join(' · '),
          rows: [...group.querySelectorAll(':scope > ol > .trace-row')].map(
            (row) => `${row.getAttribute('data-kind')}:${row.querySelector('.trace-name')?.textContent}`,
          ),
        })),
      );
    // The leader plans (its delegation), the worker answers, the leader sums up: three member runs.
    await expect.poll(tracks, POLL).toEqual([
      { label: 'crew-lead (leader)', rows: ['model:scripted:lead-model'] },
      { label: 'crew-w1 (worker)', rows: ['model:scripted:worker-model'] },
      { label: 'crew-lead (leader) · turn 2', rows: ['model:scripted:lead-model'] },
    ]);
    const worker = page.locator('#trace .trace-group[data-track-kind="member"]').nth(1);
    expect(await worker.locator('.trace-preview').innerText()).toContain('Fact: tides follow the moon.');
    expect(await worker.locator('.trace-row').getAttribute('style')).toContain('--depth: 1');
    await shoot(page, 'team');
    expect(errors).toEqual([]);
    await page.context().close();
    leadModel.assertConsumed();
    workerModel.assertConsumed();
  });

  it('shows a key without the team’s history the messages its members’ calls sent', async () => {
    const team = await teamRun(ALICE, {
      task: 'Count the tides.',
      delegated: `Count ${MARKUP}`,
      found: 'Three.',
      summary: 'Counted.',
    });
    expect((await call('/api/stars/crew/messages', ALICE)).status).toBe(403);
    const { page, errors } = await openPage(`#/runs/${team}`, ALICE);
    const messages = page.locator('.team-messages li');
    await expect.poll(() => messages.count(), POLL).toBe(1);
    expect(await messages.locator('.team-route').innerText()).toBe('crew-lead → crew-w1 (delegate)');
    expect(await messages.locator('p').innerText()).toBe(`Count ${MARKUP}`);
    expect(await page.locator('.team-messages').getAttribute('aria-label')).toBe(
      'Messages, the members’ tool calls',
    );
    expect(await page.locator('.team img').count()).toBe(0);
    expect(await page.locator('#trace .trace-group[data-track-kind="member"]').count()).toBe(3);
    expect(errors).toEqual([]);
    await page.context().close();
    leadModel.assertConsumed();
    workerModel.assertConsumed();
  });

  it('compares two runs side by side: answer, steps, tokens, cost, duration', async () => {
    helperModel.push(
      { text: 'Short answer.', usage },
      { toolCalls: [{ name: 'lookup', input: { word: 'sea' } }], usage },
      { text: 'Longer answer.', usage },
    );
    const a = await run(ALICE, 'compare me');
    const b = await run(ALICE, 'compare me too');
    const { page, errors } = await openPage(`#/compare/${a}/${b}`, ALICE);
    await expect.poll(() => page.locator('.compare-side').count(), POLL).toBe(2);
    expect(await page.locator('[data-side="a"] .compare-answer').innerText()).toBe('Short answer.');
    expect(await page.locator('[data-side="b"] .compare-answer').innerText()).toBe('Longer answer.');
    expect(await page.locator('[data-side="a"] [data-fact="steps"]').innerText()).toBe('1');
    expect(await page.locator('[data-side="b"] [data-fact="steps"]').innerText()).toBe('3');
    expect(await page.locator('[data-side="b"] [data-fact="tokens"]').innerText()).toBe('2.4k in · 600 out');
    expect(await page.locator('[data-side="a"] [data-fact="model"]').innerText()).toBe(
      'scripted:gpt-4.1-mini',
    );
    expect(await page.locator('.compare-again').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lists the Cosmos agents with their state and stats in the Agents view', async () => {
    const { page, errors } = await openPage('', ADMIN);
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    await expect
      .poll(() => page.locator('#cosmos-rows tr').evaluateAll((n) => n.map((tr) => tr.dataset.agent)), POLL)
      .toEqual(expect.arrayContaining(['crew-lead', 'crew-w1']));
    const lead = page.locator('#cosmos-rows tr[data-agent="crew-lead"]');
    expect(await lead.locator('td').nth(1).innerText()).toBe('lead');
    expect(await lead.locator('td').nth(3).innerText()).toBe('shared');
    expect(await page.locator('#cosmos-summary').innerText()).toMatch(/^\d+ agents of \d+ · \d+ running · /);
    await shoot(page, 'agents');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('draws the fields richer steps carry: child tracks grouped and indented, TTFT, permission, approval', async () => {
    // The page's own renderer on steps shaped as GET /runs/:id/steps answers them, with what one
    // scripted run does not give at once: a nested sub-agent, a failed child call, fixed times.
    const { page, errors } = await openPage('', ALICE);
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0, ms)).toISOString();
    const base = { runId: 'r1', step: 1, status: 'ok' };
    const task = {
      runId: 'child-1',
      kind: 'subagent',
      label: 'task research: find the tide tables',
      callId: 'c1',
    };
    const nested = {
      ...task,
      runId: 'child-2',
      label: 'task check: <b>verify</b>',
      callId: 'c3',
      parentRunId: 'child-1',
    };
    const steps = [
      {
        ...base,
        seq: 1,
        kind: 'model',
        name: 'gpt-4.1',
        startedAt: at(0),
        finishedAt: at(100),
        durationMs: 100,
        firstTokenMs: 40,
        usage: { inputTokens: 50, outputTokens: 10 },
      },
      {
        ...base,
        seq: 2,
        kind: 'tool',
        name: 'task',
        callId: 'c1',
        startedAt: at(100),
        finishedAt: at(400),
        durationMs: 300,
        permission: { decision: 'ask', rule: 'task' },
        approval: { approved: true, by: 'alice', at: at(150) },
        preview: { input: '{"description":"<img src=x>"}' },
      },
      {
        ...base,
        seq: 3,
        kind: 'model',
        name: 'gpt-4.1-mini',
        startedAt: at(120),
        finishedAt: at(200),
        durationMs: 80,
        track: task,
      },
      {
        ...base,
        seq: 4,
        kind: 'tool',
        name: 'task',
        callId: 'c3',
        startedAt: at(200),
        finishedAt: at(350),
        durationMs: 150,
        track: task,
      },
      {
        ...base,
        seq: 5,
        kind: 'model',
        name: 'gpt-4.1-mini',
        startedAt: at(210),
        finishedAt: at(340),
        durationMs: 130,
        track: nested,
        status: 'error',
        error: { code: 'MODEL_HTTP_ERROR', message: 'away' },
      },
      {
        ...base,
        seq: 6,
        kind: 'model',
        name: 'gpt-4.1',
        startedAt: at(400),
        finishedAt: at(500),
        durationMs: 100,
      },
    ];
    // The module is imported as the page imports it (the page's CSP allows its own scripts only).
    await page.evaluate(`(async () => {
      const { traceRows } = await import('/ui/trace.js');
      const list = document.createElement('ol');
      list.id = 'sample-trace';
      list.append(traceRows(${JSON.stringify(steps)}, ${JSON.stringify({ createdAt: at(0), finishedAt: at(500) })}).rows);
      document.body.append(list);
    })()`);
    const sample = page.locator('#sample-trace');
    await expect.poll(() => sample.count(), POLL).toBe(1);
    const drawn = await sample.evaluate((list) => {
      const shape = (ol: typeof list): unknown[] =>
        [...ol.children].map((li) =>
          li.classList.contains('trace-group')
            ? {
                group: li.querySelector('.trace-name')?.textContent,
                rows: shape(li.querySelector(':scope > ol')!),
              }
            : `${li.getAttribute('data-seq')} ${li.querySelector('.trace-facts')?.textContent ?? ''}`.trim(),
        );
      const rows = [...list.querySelectorAll('.trace-row')];
      return {
        shape: shape(list),
        depths: rows.map((row) => /--depth:\s*(\d+)/.exec(row.getAttribute('style') ?? '')?.[1] ?? '0'),
        markup: list.querySelectorAll('img, b').length,
      };
    });
    expect(drawn.shape).toEqual([
      '1 TTFT 40 ms · 50 in · 10 out',
      expect.stringMatching(/^2 ask \(task\) · approved by alice at /),
      {
        group: 'task research: find the tide tables',
        rows: ['3', '4', { group: 'task check: <b>verify</b>', rows: ['5'] }],
      },
      '6',
    ]);
    expect(drawn.depths).toEqual(['0', '0', '1', '1', '2', '0']);
    expect(drawn.markup).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('runs a run again with an edited input and another model, then compares both', async () => {
    helperModel.push({ text: 'First.', usage });
    writerModel.push({ text: `Second. ${MARKUP}`, usage });
    const id = await run(ALICE, 'say something');
    const { page, errors } = await openPage(`#/runs/${id}`, ALICE);
    await expect.poll(() => page.locator('#again-input').inputValue(), POLL).toBe('say something');
    await page.locator('#again-input').fill('say something else');
    // GET /runs/models: the served agents' models, the run's own first (as "the same model"); a
    // chain's by its first model.
    await expect
      .poll(() => page.locator('#again-model option').evaluateAll((o) => o.map((x) => x.value)), POLL)
      .toEqual(['', 'scripted:down-model', 'scripted:gpt-4.1-mini', 'scripted:writer-model']);
    await page.locator('#again-model').selectOption('scripted:writer-model');
    await page.getByRole('button', { name: 'Run again' }).click();
    await expect.poll(() => page.url(), POLL).toMatch(new RegExp(`#/compare/${id}/[0-9a-f-]{36}$`));
    const again = decodeURIComponent(page.url().split('/').at(-1)!);
    await expect.poll(() => page.locator('.compare-side').count(), POLL).toBe(2);
    expect(await page.locator('[data-side="a"] .compare-input').innerText()).toBe('say something');
    expect(await page.locator('[data-side="b"] .compare-input').innerText()).toBe('say something else');
    expect(await page.locator('[data-side="a"] .compare-answer').innerText()).toBe('First.');
    expect(await page.locator('[data-side="b"] .compare-answer').innerText()).toBe(`Second. ${MARKUP}`);
    expect(await page.locator('[data-side="b"] [data-fact="model"]').innerText()).toBe(
      'scripted:writer-model',
    );
    expect(await page.locator('#compare-view img').count()).toBe(0);
    expect(await page.locator('.compare-again').innerText()).toBe(
      'The second run is a run again of the first.',
    );
    await shoot(page, 'compare');
    // The server paired them: the repeat's record names the first run, and its page links the comparison.
    const record = await call(`/api/runs/${again}`, ALICE);
    expect(record.body).toMatchObject({ againOf: id, model: 'scripted:writer-model', via: 'rest' });
    await page.goto(`${url}/#/runs/${again}`);
    await expect.poll(textOf(page.locator('.run-model')), POLL).toBe('scripted:writer-model');
    await page.locator('.run-compare').click();
    await expect.poll(() => page.url(), POLL).toMatch(new RegExp(`#/compare/${id}/${again}$`));
    // The list marks the repeat with a link to the same comparison.
    await page.goto(`${url}/#/runs`);
    const link = page.locator(`tr[data-run="${again}"] .runs-again`);
    await expect.poll(() => link.count(), POLL).toBe(1);
    expect(await link.getAttribute('href')).toBe(`#/compare/${id}/${again}`);
    expect(errors).toEqual([]);
    await page.context().close();
    writerModel.assertConsumed();
  });

  it('tells a run again the server refuses, as its coded error', async () => {
    helperModel.push({ text: 'Once.', usage });
    const id = await run(ALICE, 'once only');
    const { page, errors } = await openPage(`#/runs/${id}`, ALICE);
    await expect.poll(() => page.locator('#again-input').inputValue(), POLL).toBe('once only');
    await page.locator('#again-input').fill('');
    await page.getByRole('button', { name: 'Run again' }).click();
    await expect.poll(textOf(page.locator('.again-form .error')), POLL).toMatch(/^INVALID_BODY: /);
    expect(page.url()).toMatch(new RegExp(`#/runs/${id}$`));
    // The browser logs the 400 it got; nothing else went wrong.
    expect(errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
    await page.context().close();
  });

  it('groups a sub-agent’s steps under its task call, indented under its label', async () => {
    // General-purpose sub-agents answer from the calling agent's model: the task's turn comes second.
    helperModel.push(
      {
        toolCalls: [
          { name: 'task', input: { description: 'Find the tide tables.', subagent_type: 'general-purpose' } },
        ],
        usage,
      },
      { text: 'High tide at noon.', usage },
      { text: 'The tables say noon.', usage },
    );
    const id = await run(ALICE, 'when is high tide?');
    const { page, errors } = await openPage(`#/runs/${id}`, ALICE);
    const group = page.locator('#trace .trace-group[data-track-kind="subagent"]');
    await expect.poll(() => group.count(), POLL).toBe(1);
    // The label the recorder writes: `task <type>: <the description's first 60 characters>`.
    expect(await group.locator('.trace-group-head .trace-name').innerText()).toBe(
      'task general-purpose: Find the tide tables.',
    );
    expect(await group.locator('.trace-group-head .trace-facts').innerText()).toMatch(
      /^1 step · [\d.]+ (ms|s) · 1\.2k in · 300 out$/,
    );
    expect(await group.locator('.trace-row').count()).toBe(1);
    expect(await group.locator('.trace-row').first().getAttribute('style')).toContain('--depth: 1');
    // The group comes right after the task call that started it.
    expect(
      await page
        .locator('#trace > li')
        .evaluateAll((items) =>
          items.map((li) => li.getAttribute('data-kind') ?? li.getAttribute('data-track-kind')),
        ),
    ).toEqual(['model', 'tool', 'subagent', 'model']);
    // The sub-agent's model call opens its payload: its answer and the task it was sent.
    const inner = group.locator('.trace-row').first();
    await inner.locator('.trace-open').click();
    await expect.poll(() => inner.locator('.trace-detail').innerText(), POLL).toContain('High tide at noon.');
    expect(await inner.locator('.trace-detail').innerText()).toContain('Find the tide tables.');
    await shoot(page, 'subagent');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('opens a model call’s full payload: its answer and the messages it was sent', async () => {
    helperModel.push(
      { toolCalls: [{ name: 'lookup', input: { word: 'payload' } }], usage },
      { text: 'Payload answer.', usage },
    );
    const id = await run(ALICE, 'show the payload');
    const { page, errors } = await openPage(`#/runs/${id}`, ALICE);
    const row = page.locator('#trace .trace-row[data-kind="model"]').last();
    await expect.poll(() => row.count(), POLL).toBe(1);
    await row.locator('.trace-open').click();
    const detail = row.locator('.trace-detail');
    await expect.poll(() => detail.locator('[data-part="answer"]').innerText(), POLL).toBe('Payload answer.');
    // Sent: the run's input, the first answer's tool call and the tool's output.
    const sent = await detail.locator('[data-part="sent"]').innerText();
    expect(sent).toContain('show the payload');
    expect(sent).toContain('payload means');
    expect(await detail.innerText()).toMatch(/Payload\s+\d[\d,]* bytes/);
    // A run deleted while its page is open: a step opened then says the server's error.
    expect((await call(`/api/runs/${id}`, ALICE, { method: 'DELETE' })).status).toBe(204);
    const tool = page.locator('#trace .trace-row[data-kind="tool"]');
    await tool.locator('.trace-open').click();
    await expect.poll(textOf(tool.locator('.trace-detail [role="alert"]')), POLL).toMatch(/^RUN_NOT_FOUND: /);
    expect(errors.filter((error) => !/status of 404/.test(error))).toEqual([]);
    await page.context().close();
  });

  it('cuts a tool’s 1 MB output: the server keeps its start, the page shows part of that and stays quick', async () => {
    helperModel.push({ toolCalls: [{ name: 'dump', input: {} }], usage }, { text: 'Dumped.', usage });
    const id = await run(ALICE, 'dump the log');
    const steps = (await call(`/api/runs/${id}/steps`, ALICE)).body.steps;
    const tool = steps.find((step: { kind: string }) => step.kind === 'tool');
    expect(tool.payloadBytes).toBeGreaterThan(BIG_OUTPUT_CHARS);
    expect(tool.preview.output.length).toBeLessThanOrEqual(240);
    const { page, errors } = await openPage(`#/runs/${id}`, ALICE);
    const row = page.locator('#trace .trace-row[data-kind="tool"]');
    await expect.poll(() => row.count(), POLL).toBe(1);
    expect(await row.locator('.trace-preview').innerText()).toContain(MARKUP);
    await row.locator('.trace-open').click();
    const detail = row.locator('.trace-detail');
    await expect.poll(() => detail.locator('.trace-truncated').count(), POLL).toBe(1);
    const output = await detail.locator('[data-part="output"]').innerText();
    expect(output.startsWith(`${MARKUP}log line\nlog line`)).toBe(true);
    expect(output.length).toBeLessThan(101_000);
    expect(output).toMatch(/more characters not shown\)$/);
    expect(await page.locator('#run-view img').count()).toBe(0);
    // Still answering: the next step opens and the list comes back.
    const answer = page.locator('#trace .trace-row[data-kind="model"]').last();
    await answer.locator('.trace-open').click();
    await expect.poll(() => answer.locator('[data-part="answer"]').innerText(), POLL).toBe('Dumped.');
    await page.locator('.back a').click();
    await expect.poll(() => page.locator(`tr[data-run="${id}"]`).count(), POLL).toBe(1);
    expect(await page.evaluate(() => 'pwned' in globalThis)).toBe(false);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('searches runs by their input on the server, past the first page', async () => {
    // More than a page of runs since "question 0": only the server's search can find it.
    expect(
      (await call('/api/runs?limit=25', ALICE)).body.runs.map((r: { input: string }) => r.input),
    ).not.toContain('question 0');
    const { page, errors } = await openPage('#/runs', ALICE);
    await expect.poll(() => page.locator('#runs-rows tr').count(), POLL).toBe(25);
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/runs?'))
        asked.push(new URL(request.url()).searchParams.get('q') ?? '');
    });
    await page.locator('#runs-q').pressSequentially('Question 0', { delay: 20 });
    await expect
      .poll(() => page.locator('#runs-rows .runs-input').allInnerTexts(), POLL)
      .toEqual(['question 0']);
    // Typing is waited out: the server is asked for the whole text, not once per key.
    expect(asked.filter((q) => q.startsWith('Question')).length).toBeLessThanOrEqual(2);
    expect(asked).toContain('Question 0');
    // The other filters go with it.
    await page.locator('#runs-status').selectOption('failed');
    await expect.poll(() => page.locator('#runs-table + .empty').isVisible(), POLL).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('answers a forged address with "No run", never another key’s run or a request out of /runs', async () => {
    helperModel.push({ text: 'Alice’s.', usage });
    const alices = await run(ALICE, 'alice only');
    const { page, errors } = await openPage('#/runs', BOB);
    const said = textOf(page.locator('#run-view .error, #compare-view .error').filter({ visible: true }));
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    // Another key's run, on its page and in a comparison.
    await page.goto(`${url}/#/runs/${alices}`);
    await expect.poll(said, POLL).toBe(`No run "${alices}" for this key.`);
    await page.goto(`${url}/#/compare/${alices}/${alices}`);
    await expect.poll(said, POLL).toBe(`No run "${alices}" for this key.`);
    // Dots that would climb out of /runs/ are never asked for.
    for (const forged of ['..', '%2E%2E', '.']) {
      await page.goto(`${url}/#/runs/${forged}`);
      await expect.poll(said, POLL).toMatch(/^No run "\.{1,2}" for this key\.$/);
    }
    await page.goto(`${url}/#/compare/../..`);
    await expect.poll(said, POLL).toBe('No run ".." for this key.');
    // `/api/runs/..` and `/api/runs/.` would have been asked as these.
    expect(asked.filter((path) => path === '/api/' || path === '/api/runs/')).toEqual([]);
    // Markup in the address is text; an address of no view opens the list.
    await page.goto(`${url}/#/runs/${encodeURIComponent(MARKUP)}`);
    await expect.poll(said, POLL).toBe(`No run "${MARKUP}" for this key.`);
    await page.goto(`${url}/#/compare/only-one`);
    await expect.poll(() => page.locator('#runs-view').isVisible(), POLL).toBe(true);
    expect(await page.locator('.studio img').count()).toBe(0);
    expect(await page.evaluate(() => 'pwned' in globalThis)).toBe(false);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
