/**
 * The studio behind a reverse proxy, in headless Chromium: the browser knows the service only by
 * its public name (`publicUrl`), a proxy passes that name on as `Host` to a HubOS serving its API
 * under `/v1` with API keys. The Runs view lists the key's runs, a trace opens with its payload,
 * run again posts through the proxy (the public origin may post), another key's run is "No run",
 * and the same page reached by a name the server does not know is refused.
 * Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { CHROMIUM, launchChromium, missingChromium } from '../helpers/chromium.ts';

const WHO = 'the studio proxy test';
const PUBLIC_HOST = 'studio.example.test';
const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdefgh';
const POLL = { timeout: 10_000, interval: 50 };

const model = new ScriptedModel([], { modelId: 'proxy-model' });
let kernel: Kernel;
let hubos: HubOS;
let proxy: Server;
let browser: Browser;
let publicUrl: string;
let direct: string;

/**
 * A reverse proxy as nginx's `proxy_pass` with `proxy_set_header Host $host` is: each request,
 * streamed both ways (SSE included), with the public Host header kept and X-Forwarded-For added.
 */
function reverseProxy(target: () => URL): Server {
  return createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: target().hostname,
        port: target().port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, 'x-forwarded-for': incoming.socket.remoteAddress ?? '' },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
}

async function call(path: string, key: string, init: RequestInit = {}) {
  const response = await fetch(`${direct}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function run(key: string, input: string): Promise<string> {
  const answer = await call('/v1/agents/helper/run', key, {
    method: 'POST',
    body: JSON.stringify({ input }),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.runId;
}

async function openPage(address: string, key: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript((stored) => localStorage.setItem('hubos.apiKey', stored), key);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A 404 is another key's run; COOP is ignored (and said so) on plain http under a public name,
    // where a real deployment has https.
    if (message.type() === 'error' && !/status of 40[34]|Cross-Origin-Opener-Policy/.test(message.text()))
      errors.push(`console: ${message.text()}`);
  });
  await page.goto(address);
  return { page, errors };
}

it("has Debian's chromium installed (the system tests fail, never skip, without it)", () => {
  expect(existsSync(CHROMIUM), missingChromium(WHO)).toBe(true);
});

describe('the studio behind a reverse proxy', () => {
  beforeAll(async () => {
    kernel = await bootKernel({ config: { agents: { helper: { model, description: 'Answers.' } } } });
    // The proxy's port is the public URL's, so it listens first, and learns HubOS's address after.
    proxy = reverseProxy(() => new URL(direct));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyPort = (proxy.address() as AddressInfo).port;
    publicUrl = `http://${PUBLIC_HOST}:${proxyPort}`;
    hubos = new HubOS({
      kernel,
      name: 'proxied',
      port: 0,
      rateLimit: false,
      apiPrefix: '/v1',
      publicUrl,
      apiKeys: [
        { key: ALICE, id: 'alice' },
        { key: BOB, id: 'bob' },
      ],
    });
    hubos.registerAgent('helper', kernel.agent('helper'));
    direct = await hubos.serve();
    // The public name resolves to the proxy, as DNS would.
    browser = await launchChromium(WHO, [`--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`]);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => proxy?.close(resolve));
    await hubos?.close();
    await kernel?.close();
  });

  it('lists the key’s runs, opens a trace and runs a run again, all through the public name', async () => {
    model.push('Low tide at six.');
    const id = await run(ALICE, 'when is low tide?');
    model.push('Bob’s answer.');
    const bobs = await run(BOB, 'bob asks');
    model.push('Low tide at six, again.');

    const { page, errors } = await openPage(`${publicUrl}/#/runs`, ALICE);
    const rows = page.locator('#runs-rows tr');
    await expect.poll(() => rows.evaluateAll((r) => r.map((row) => row.dataset.run)), POLL).toEqual([id]);

    await page.goto(`${publicUrl}/#/runs/${id}`);
    await expect.poll(() => page.locator('#trace .trace-row').count(), POLL).toBeGreaterThan(0);
    await page.locator('#trace .trace-row').first().click();
    await expect.poll(() => page.locator('#trace').innerText(), POLL).toContain('Low tide at six.');

    // Run again is a POST from the public origin, through the proxy, under /v1.
    await page.getByRole('button', { name: 'Run again' }).click();
    await expect.poll(() => page.url(), POLL).toMatch(new RegExp(`#/compare/${id}/[0-9a-f-]{36}$`));
    await expect.poll(() => page.locator('.compare-side').count(), POLL).toBe(2);
    await expect
      .poll(() => page.locator('[data-side="b"] .compare-answer').innerText(), POLL)
      .toBe('Low tide at six, again.');

    // Another key's run does not exist for this one, through the proxy as anywhere.
    await page.goto(`${publicUrl}/#/runs/${bobs}`);
    await expect.poll(() => page.locator('main').innerText(), POLL).toContain('No run');
    expect(await page.locator('main').innerText()).not.toContain('bob asks');
    expect(errors).toEqual([]);
    await page.context().close();
    model.assertConsumed();
  });

  it('asks for the key when the browser has none, and sends no run without one', async () => {
    const { page } = await openPage(`${publicUrl}/#/runs`, '');
    await expect.poll(() => page.locator('#key-dialog').isVisible(), POLL).toBe(true);
    expect(await page.locator('#runs-rows tr').count()).toBe(0);
    await page.context().close();
  });

  it('refuses the page and the API under a name the server was not told of', async () => {
    // fetch() sets Host itself: a raw request forges it, as an attacker's client would.
    const target = new URL(direct);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const forged = request(
        {
          host: target.hostname,
          port: target.port,
          path: '/v1/runs',
          headers: { host: 'attacker.example', authorization: `Bearer ${ALICE}` },
        },
        (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      forged.on('error', reject);
      forged.end();
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.code).toBe('HOST_NOT_ALLOWED');
  });
});
