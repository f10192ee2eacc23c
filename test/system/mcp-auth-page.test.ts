/**
 * The chat page signs HubOS in to an OAuth-protected MCP server: the server waits in
 * `authorizing`, the page shows a link, a click in the real browser goes through the authorization
 * server and back to HubOS's loopback callback, and the server's tools arrive.
 * Needs Debian's chromium (`apt-get install -y chromium`); fails, never skips, without it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Kernel } from '../../core/index.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';
import mcp from '../../plugins/mcp/index.ts';
import { bootKernel } from '../../testing/index.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { type OAuthMcpServer, startOAuthMcpServer } from '../plugins/mcp/client-oauth-servers.ts';

const POLL = { timeout: 15_000, interval: 100 };

let protectedServer: OAuthMcpServer;
let kernel: Kernel;
let hubos: HubOS;
let browser: Browser;
let url: string;

beforeAll(async () => {
  protectedServer = await startOAuthMcpServer();
  kernel = await bootKernel({
    config: { mcp: { servers: { p: { url: protectedServer.url } } } },
    plugins: [mcp()],
  });
  hubos = new HubOS({ kernel, name: 'auth-hub', port: 0, rateLimit: false });
  url = await hubos.serve();
  browser = await launchChromium('the page tests');
});

afterAll(async () => {
  await browser?.close();
  await hubos?.close();
  await kernel?.close();
  await protectedServer?.stop();
});

it('shows a link while an MCP server waits for authorization; following it connects the server', async () => {
  const clients = kernel.service('mcp').clients;
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${url}/`);

  const link = page.getByRole('link', { name: 'Authorize HubOS at “p”' });
  await expect.poll(() => link.isVisible(), POLL).toBe(true);
  expect(clients.get('p')?.state).toBe('authorizing');
  expect(await link.getAttribute('href')).toBe(clients.get('p')?.authorization?.url);
  expect(await link.getAttribute('rel')).toBe('noopener noreferrer');

  // The browser signs in (the test's authorization server approves at once) and lands on the loopback.
  const [signIn] = await Promise.all([context.waitForEvent('page'), link.click()]);
  await signIn.waitForLoadState();
  await expect.poll(() => clients.get('p')?.state, POLL).toBe('ready');
  expect(kernel.registry.has('p_whoami')).toBe(true);
  await expect.poll(() => page.locator('#mcp-auth').isHidden(), POLL).toBe(true);
  expect(errors).toEqual([]);
  await context.close();
});
