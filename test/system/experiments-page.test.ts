/**
 * The studio's Experiments in headless Chromium against a real listening HubOS: the list (newest
 * first, by agent, by pages, two picked to compare), one experiment (its means against their
 * thresholds, each case's scores with their reasons, worse-than-baseline marked, the link to the
 * trace of the real run that answered it), and two compared case by case. Each key sees its own
 * only; markup in an output is text. With HUBOS_SCREENSHOTS=<dir> set it saves the screens there
 * (docs/public/studio/). Needs Debian's chromium; fails, never skips, without it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseResult, Experiment } from '../../core/evals/experiment.ts';
import { ExperimentStore, type Kernel } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { CHROMIUM, launchChromium, missingChromium } from '../helpers/chromium.ts';
import { caseResult, seedExperiment, summarize } from '../helpers/experiments.ts';

const PAGE_TESTS = 'the experiments page tests';
const POLL = { timeout: 10_000, interval: 50 };
const SHOTS = process.env.HUBOS_SCREENSHOTS;

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdefgh';
const ADMIN = 'root-key-0123456789abcdefg';

/** Markup in a case's output: the page must show it as text, never run it. */
const MARKUP = '<img src=x onerror="window.pwned=1"><b>bold</b>';

const helperModel = new ScriptedModel([], { modelId: 'gpt-4.1-mini' });
let kernel: Kernel;
let browser: Browser;
let url: string;
let hubos: HubOS;
/** Alice's: the baseline, the one compared with it, and one of another agent. */
let baseline: Experiment;
let latest: Experiment;
let writers: Experiment;
/** The admin key's, of 250 cases. */
let big: Experiment;
/** The real run that answered the first case of `latest`. */
let runId: string;

async function run(key: string, input: string): Promise<string> {
  const response = await fetch(`${url}/api/agents/helper/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  const body = (await response.json()) as { runId: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.runId;
}

async function openPage(path: string, key: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript((stored) => localStorage.setItem('hubos.apiKey', stored), key);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A 404 (another key's experiment) is logged by the browser; the page says "No experiment".
    if (message.type() === 'error' && !/status of 40[34]/.test(message.text()))
      errors.push(`console: ${message.text()}`);
  });
  await page.goto(`${url}/${path}`);
  return { page, errors };
}

async function shoot(page: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const size = page.viewportSize()!;
  const extra = await page
    .locator('main')
    .evaluate((main) => main.scrollHeight - main.clientHeight)
    .catch(() => 0);
  await page.setViewportSize({ width: size.width, height: Math.min(2400, size.height + Math.max(0, extra)) });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  await page.setViewportSize(size);
}

const textOf = (locator: Locator) => () => locator.innerText().catch(() => '');
const rowIds = (page: Page) =>
  page.locator('#experiments-rows tr').evaluateAll((rows) => rows.map((row) => row.dataset.experiment));

/** The refund dataset's three cases; `better` answers the late-return case right. */
function refundCases(runOfFirst: string, better: boolean): CaseResult[] {
  return [
    caseResult(
      'refund-window',
      'How long do I have to return a jacket?',
      better ? `You have 30 days to return it. ${MARKUP}` : 'You have 30 days.',
      {
        contains: { score: 1, reason: 'contains "30 days"' },
        judge: { score: better ? 0.96 : 0.9, reason: 'Accurate; names the policy.' },
      },
      { runId: runOfFirst },
    ),
    caseResult(
      'refund-late',
      [
        { role: 'user', content: 'I bought a jacket in March.' },
        { role: 'assistant', content: 'Thanks, how can I help?' },
        { role: 'user', content: 'Can I return it after 45 days?' },
      ],
      better ? 'No: returns are accepted for 30 days.' : 'Sure, any time.',
      {
        contains: better
          ? { score: 1, reason: 'contains "30 days"' }
          : { score: 0, reason: 'does not contain "30 days"' },
        judge: better
          ? { score: 0.9, reason: 'States the 30-day limit correctly.' }
          : { score: 0.2, reason: 'Contradicts the 30-day policy.' },
      },
    ),
    caseResult(
      'shipping',
      'Do you ship to Norway?',
      better ? 'We ship within the EU.' : 'Yes, we ship to Norway in 5 days.',
      {
        contains: better
          ? { score: 0, reason: 'does not contain "Norway"' }
          : { score: 1, reason: 'contains "Norway"' },
      },
      better ? { worse: { contains: { before: 1, now: 0 } } } : {},
    ),
  ];
}

it("has Debian's chromium installed (the system tests fail, never skip, without it)", () => {
  expect(existsSync(CHROMIUM), missingChromium(PAGE_TESTS)).toBe(true);
});

describe('the studio’s experiments', () => {
  beforeAll(async () => {
    kernel = await bootKernel({
      config: { agents: { helper: { model: helperModel, description: 'Answers customers.' } } },
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
    url = await hubos.serve();
    browser = await launchChromium(PAGE_TESTS);

    helperModel.push('You have 30 days to return it.', 'You have 30 days.');
    const earlierRun = await run(ALICE, 'How long do I have to return a jacket?');
    runId = await run(ALICE, 'How long do I have to return a jacket?');
    const store = kernel.store;
    const thresholds = { contains: 0.9, judge: 0.7 };
    const dataset = { name: 'refunds', version: 'sha256:4f2a9c0e1b7d3a55' };
    const minute = (m: number) => new Date(Date.now() - (60 - m) * 60_000);
    baseline = await seedExperiment(store, refundCases(earlierRun, false), {
      owner: 'alice',
      dataset,
      thresholds,
      name: 'refunds before the prompt fix',
      model: 'openai:gpt-4.1-mini',
      createdAt: minute(1),
    });
    writers = await seedExperiment(store, refundCases(earlierRun, false), {
      owner: 'alice',
      agent: 'writer',
      dataset,
      createdAt: minute(2),
    });
    const before = baseline.summary!.scorers;
    latest = await seedExperiment(store, refundCases(runId, true), {
      owner: 'alice',
      dataset,
      thresholds,
      name: 'refunds after the prompt fix',
      model: 'openai:gpt-4.1-mini',
      createdAt: minute(3),
      baseline: {
        id: baseline.id,
        means: Object.fromEntries(Object.entries(before).map(([name, s]) => [name, s.mean])),
      },
    });
    // Someone else's, enough to make the admin's list two pages long.
    for (let i = 0; i < 24; i++)
      await seedExperiment(store, refundCases(earlierRun, false), { owner: 'dave', createdAt: minute(0) });
    // The admin's own, of many cases: the page writes them a hundred at a time.
    big = await seedExperiment(
      store,
      Array.from({ length: 250 }, (_, i) =>
        caseResult(
          `case-${i + 1}`,
          `question ${i + 1}`,
          `answer ${i + 1}`,
          { contains: { score: i % 10 ? 1 : 0, reason: i % 10 ? 'contains it' : 'misses it' } },
          i % 10 ? {} : { status: 'failed', error: { code: 'MODEL_ERROR', message: 'the model is away' } },
        ),
      ),
      { owner: 'root', name: 'the whole catalogue', createdAt: minute(0) },
    );
  });

  afterAll(async () => {
    await browser?.close();
    await hubos?.close();
    await kernel?.close();
  });

  it('lists a key’s experiments newest first, by agent, and by pages for an admin', async () => {
    const { page, errors } = await openPage('', ALICE);
    await page.getByRole('button', { name: 'Experiments', exact: true }).click();
    expect(page.url()).toMatch(/#\/experiments$/);
    await expect.poll(() => rowIds(page), POLL).toEqual([latest.id, writers.id, baseline.id]);
    const row = page.locator(`tr[data-experiment="${latest.id}"]`);
    expect(await row.innerText()).toContain('refunds after the prompt fix');
    expect(await row.innerText()).toContain('refunds · sha256:4f2a9c0e…');
    expect(await row.innerText()).toContain('contains 0.67 · judge 0.93');
    expect(await row.locator('[data-verdict]').innerText()).toBe('fail');
    expect(await page.locator(`tr[data-experiment="${baseline.id}"] [data-verdict]`).innerText()).toBe(
      'fail',
    );

    await page.locator('#experiments-agent').fill('writer');
    await expect.poll(() => rowIds(page), POLL).toEqual([writers.id]);
    await page.locator('#experiments-agent').fill('nobody');
    await expect.poll(() => page.locator('#experiments-table + .empty').isVisible(), POLL).toBe(true);
    await page.locator('#experiments-agent').fill('');
    await expect.poll(() => rowIds(page), POLL).toHaveLength(3);
    expect(errors).toEqual([]);

    // The admin key sees everyone's, 25 a page.
    const admin = await openPage('#/experiments', ADMIN);
    await expect.poll(() => admin.page.locator('#experiments-rows tr').count(), POLL).toBe(25);
    expect(await admin.page.locator('#experiments-page').innerText()).toBe('Page 1 · 25 experiments');
    await admin.page.locator('#experiments-older').click();
    await expect.poll(() => admin.page.locator('#experiments-rows tr').count(), POLL).toBe(3);
    expect(await admin.page.locator('#experiments-older').isDisabled()).toBe(true);
    await admin.page.locator('#experiments-newer').click();
    await expect.poll(() => admin.page.locator('#experiments-rows tr').count(), POLL).toBe(25);
    expect(admin.errors).toEqual([]);
  });

  it('shows one experiment: means against thresholds, scores with reasons, worse cases, the trace of a case’s run', async () => {
    const { page, errors } = await openPage(`#/experiments/${latest.id}`, ALICE);
    const view = page.locator('#experiment-view');
    await expect.poll(textOf(view.locator('#experiment-title')), POLL).toBe('refunds after the prompt fix');
    expect(await view.locator('[data-fact="dataset"]').innerText()).toBe('refunds · sha256:4f2a9c0e…');
    expect(await view.locator('[data-fact="dataset"] .dataset').getAttribute('title')).toBe(
      'sha256:4f2a9c0e1b7d3a55',
    );
    expect(await view.locator('[data-fact="agent"]').innerText()).toBe('helper');
    expect(await view.locator('[data-fact="model"]').innerText()).toBe('openai:gpt-4.1-mini');
    expect(await view.locator('[data-fact="result"]').innerText()).toBe('fail');

    // contains: 2 of 3 (0.67) under its 0.9, judge 0.93 over its 0.7; both against the baseline.
    const contains = view.locator('#experiment-summary tr[data-scorer="contains"]');
    expect((await contains.innerText()).split('\t').map((cell) => cell.trim())).toEqual([
      'contains',
      '0.67',
      '3',
      '0.90',
      'fail',
      '0.67 = same',
    ]);
    const judge = view.locator('#experiment-summary tr[data-scorer="judge"]');
    expect((await judge.innerText()).split('\t').map((cell) => cell.trim())).toEqual([
      'judge',
      '0.93',
      '2',
      '0.70',
      'pass',
      '0.55 ▲ better',
    ]);

    // Each case, in the dataset's order, with its scores and reasons; the one that got worse is marked.
    expect(
      await view.locator('.experiment-case').evaluateAll((cases) => cases.map((c) => c.dataset.case)),
    ).toEqual(['refund-window', 'refund-late', 'shipping']);
    const late = view.locator('.experiment-case[data-case="refund-late"]');
    expect(await late.locator('.experiment-input').innerText()).toBe(
      'user: I bought a jacket in March.\nassistant: Thanks, how can I help?\nuser: Can I return it after 45 days?',
    );
    expect(await late.locator('tr[data-scorer="judge"] .experiment-reason').innerText()).toBe(
      'States the 30-day limit correctly.',
    );
    const shipping = view.locator('.experiment-case[data-case="shipping"]');
    expect(await shipping.getAttribute('data-worse')).toBe('true');
    expect(await shipping.locator('.experiment-case-head').innerText()).toContain(
      '▼ worse than the baseline',
    );
    expect(await shipping.locator('tr[data-scorer="contains"]').innerText()).toContain('0.00 ▼ was 1.00');
    expect(await late.getAttribute('data-worse')).toBe('false');
    expect(await view.locator('#experiment-cases-title').innerText()).toBe(
      'CASES · 1 WORSE THAN THE BASELINE',
    );

    // Markup in an output is text.
    const first = view.locator('.experiment-case[data-case="refund-window"]');
    expect(await first.locator('.experiment-output').innerText()).toBe(
      `You have 30 days to return it. ${MARKUP}`,
    );
    expect(await view.locator('img, b').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    await shoot(page, 'experiment');

    // Only those that need a look: the one that got worse.
    await view.locator('#experiment-only').check();
    await expect
      .poll(
        () => view.locator('.experiment-case').evaluateAll((cases) => cases.map((c) => c.dataset.case)),
        POLL,
      )
      .toEqual(['shipping']);
    await view.locator('#experiment-only').uncheck();
    await expect.poll(() => view.locator('.experiment-case').count(), POLL).toBe(3);
    expect(await view.locator('#experiment-more').isHidden()).toBe(true);

    // The case's run: its trace, with the model call that answered.
    await first.locator('a.experiment-run').click();
    expect(page.url()).toContain(`#/runs/${runId}`);
    await expect.poll(() => page.locator('#trace .trace-row').count(), POLL).toBeGreaterThan(0);
    expect(await page.locator('#run-view .run-answer').innerText()).toBe('You have 30 days.');
    expect(errors).toEqual([]);
  });

  it('writes a big experiment’s cases a hundred at a time, and its failed ones on their own', async () => {
    const { page, errors } = await openPage(`#/experiments/${big.id}`, ADMIN);
    const view = page.locator('#experiment-view');
    await expect.poll(() => view.locator('.experiment-case').count(), POLL).toBe(100);
    expect(await view.locator('#experiment-more').innerText()).toBe('Show 100 more (150 not shown)');
    await view.locator('#experiment-more').click();
    await expect.poll(() => view.locator('.experiment-case').count(), POLL).toBe(200);
    await view.locator('#experiment-more').click();
    await expect.poll(() => view.locator('.experiment-case').count(), POLL).toBe(250);
    expect(await view.locator('#experiment-more').isHidden()).toBe(true);
    expect(await view.locator('.experiment-case').last().getAttribute('data-case')).toBe('case-250');

    expect(await view.locator('label[for="experiment-only"]').innerText()).toBe(
      'Only the 25 that got worse or did not complete',
    );
    await view.locator('#experiment-only').check();
    await expect.poll(() => view.locator('.experiment-case').count(), POLL).toBe(25);
    expect(await view.locator('.experiment-case[data-status="failed"]').count()).toBe(25);
    expect(await view.locator('.experiment-case[data-case="case-11"] .run-error').innerText()).toBe(
      'MODEL_ERROR: the model is away',
    );
    // Compared with itself: nothing changed; its cases come a hundred at a time there too.
    await page.goto(`${url}/#/experiments/${big.id}/vs/${big.id}`);
    const compare = page.locator('#experiment-compare-view');
    await expect.poll(() => compare.locator('#experiment-compare-cases tbody tr').count(), POLL).toBe(100);
    expect(await compare.locator('#experiment-compare-more').innerText()).toBe(
      'Show 100 more cases (150 not shown)',
    );
    expect(await compare.locator('#experiment-compare-cases-title').textContent()).toBe(
      'Cases · 0 scores better, 0 worse',
    );
    await compare.locator('#experiment-compare-only').check();
    await expect.poll(() => compare.locator('#experiment-compare-cases tbody tr').count(), POLL).toBe(0);
    await page.goto(`${url}/#/experiments/${big.id}`);
    await expect.poll(() => view.locator('.experiment-case').count(), POLL).toBe(100);

    // No threshold: nothing to fail, the scorer's row says so.
    expect(await view.locator('[data-fact="result"]').innerText()).toBe('pass');
    expect(await view.locator('#experiment-summary tr[data-scorer="contains"]').innerText()).toContain(
      'no threshold',
    );
    expect(errors).toEqual([]);
  });

  it('compares two picked in the list: per case and scorer, better and worse marked, and the means', async () => {
    const { page, errors } = await openPage('#/experiments', ALICE);
    await expect.poll(() => rowIds(page), POLL).toHaveLength(3);
    expect(await page.locator('#experiments-compare').isDisabled()).toBe(true);
    // Picked newest first; compared oldest first.
    await page.locator(`tr[data-experiment="${latest.id}"] input[type="checkbox"]`).check();
    await page.locator(`tr[data-experiment="${baseline.id}"] input[type="checkbox"]`).check();
    expect(
      await page.locator(`tr[data-experiment="${writers.id}"] input[type="checkbox"]`).isDisabled(),
    ).toBe(true);
    await page.locator('#experiments-compare').click();
    expect(page.url()).toContain(`#/experiments/${baseline.id}/vs/${latest.id}`);

    const view = page.locator('#experiment-compare-view');
    await expect.poll(() => view.locator('#experiment-compare-cases tbody tr').count(), POLL).toBe(5);
    const changeOf = (id: string, scorer: string) =>
      view
        .locator(`#experiment-compare-cases tr[data-case="${id}"][data-scorer="${scorer}"]`)
        .getAttribute('data-change');
    expect(await changeOf('refund-window', 'contains')).toBe('same');
    expect(await changeOf('refund-window', 'judge')).toBe('better');
    expect(await changeOf('refund-late', 'contains')).toBe('better');
    expect(await changeOf('refund-late', 'judge')).toBe('better');
    expect(await changeOf('shipping', 'contains')).toBe('worse');
    const late = view.locator('#experiment-compare-cases tr[data-case="refund-late"][data-scorer="judge"]');
    expect(await late.innerText()).toContain('0.20\t0.90\t▲ better');
    const shipping = view.locator('#experiment-compare-cases tr[data-case="shipping"]');
    expect(await shipping.innerText()).toContain('1.00\t0.00\t▼ worse');
    // The means side by side.
    expect(await view.locator('#experiment-compare-means tr[data-scorer="judge"]').innerText()).toContain(
      '0.55\t0.93\t▲ better',
    );
    expect(await view.locator('#experiment-compare-means tr[data-scorer="contains"]').innerText()).toContain(
      '= same',
    );
    expect(await view.locator('label[for="experiment-compare-only"]').innerText()).toBe(
      'Only the 3 cases whose scores changed',
    );
    expect(await view.locator('#experiment-compare-more').isHidden()).toBe(true);
    expect(await view.locator('#experiment-compare-cases-title').textContent()).toBe(
      'Cases · 3 scores better, 1 worse',
    );
    await shoot(page, 'experiment-compare');
    expect(errors).toEqual([]);
  });

  it('filters the Runs view by every way a run starts, the eval cases’ included', async () => {
    const { page, errors } = await openPage('#/runs', ALICE);
    await expect.poll(() => page.locator('#runs-rows tr').count(), POLL).toBe(2);
    // Each choice is one the server takes (a name it does not know would be a 400 on the page).
    for (const via of ['eval', 'ag-ui']) {
      await page.locator('#runs-via').selectOption(via);
      await expect.poll(() => page.locator('#runs-table + .empty').isVisible(), POLL).toBe(true);
      expect(await page.locator('#runs-view .error').isVisible()).toBe(false);
    }
    await page.locator('#runs-via').selectOption('rest');
    await expect.poll(() => page.locator('#runs-rows tr').count(), POLL).toBe(2);
    expect(errors).toEqual([]);
  });

  it('shows another key none of them, and their addresses as no experiment', async () => {
    const { page, errors } = await openPage('#/experiments', BOB);
    await expect.poll(() => page.locator('#experiments-table + .empty').isVisible(), POLL).toBe(true);
    expect(await page.locator('#experiments-rows tr').count()).toBe(0);

    await page.goto(`${url}/#/experiments/${latest.id}`);
    await expect
      .poll(textOf(page.locator('#experiment-view .error')), POLL)
      .toBe(`No experiment "${latest.id}" for this key.`);
    await page.goto(`${url}/#/experiments/${baseline.id}/vs/${latest.id}`);
    await expect
      .poll(textOf(page.locator('#experiment-compare-view .error')), POLL)
      .toMatch(/^No experiment "[0-9a-f-]+" for this key\.$/);
    // A forged address: no request climbs out of /experiments/.
    await page.goto(`${url}/#/experiments/..`);
    await expect
      .poll(textOf(page.locator('#experiment-view .error')), POLL)
      .toBe('No experiment ".." for this key.');
    expect(errors).toEqual([]);
  });

  it('follows an eval as it runs: the list shows it, its page fills as its cases end', async () => {
    const { page, errors } = await openPage('#/experiments', ALICE);
    await expect.poll(() => rowIds(page), POLL).toHaveLength(3);
    const cases = refundCases(runId, true);
    const running = await seedExperiment(kernel.store, cases.slice(0, 1), {
      owner: 'alice',
      name: 'refunds, running',
      status: 'running',
    });
    // evaluate() stores the experiment first, with its dataset's size, then each case as it ends.
    const store = new ExperimentStore(kernel.store);
    await store.put({ ...running, dataset: { ...running.dataset, cases: cases.length } });
    // The first page is asked again while shown.
    await expect.poll(async () => (await rowIds(page))[0], POLL).toBe(running.id);
    expect(await page.locator(`tr[data-experiment="${running.id}"] .badge`).innerText()).toBe('running');

    await page.locator(`tr[data-experiment="${running.id}"] a`).click();
    const view = page.locator('#experiment-view');
    await expect.poll(textOf(view.locator('#experiment-progress')), POLL).toBe('Running: 1 of 3 cases done…');
    // The other cases end, then the experiment is stored with its summary.
    await store.putCases(running.id, cases.slice(1), 1);
    await store.put({
      ...running,
      dataset: { ...running.dataset, cases: cases.length },
      status: 'completed',
      finishedAt: new Date().toISOString(),
      summary: summarize(cases, { contains: 0.5 }),
    });
    await expect.poll(() => view.locator('.experiment-case').count(), POLL).toBe(3);
    await expect.poll(textOf(view.locator('[data-fact="result"]')), POLL).toBe('pass');
    expect(await view.locator('#experiment-progress').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
