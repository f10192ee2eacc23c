import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { executeTool, type Kernel, type Logger, SqliteStore, type Store } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import mcp, { type McpAuthorizationRequest, type McpConfig } from '../../../plugins/mcp/index.ts';
import { bootKernel } from '../../../testing/index.ts';
import { bootMcp, until } from './client-helpers.ts';
import {
  type OAuthMcpServer,
  type OAuthMcpServerOptions,
  startOAuthMcpServer,
} from './client-oauth-servers.ts';

const servers: OAuthMcpServer[] = [];
const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function oauthServer(options?: OAuthMcpServerOptions): Promise<OAuthMcpServer> {
  const server = await startOAuthMcpServer(options);
  servers.push(server);
  return server;
}

/** A logger that keeps every line, debug included: what would reach a log file. */
function fullLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

/** What a person's browser does with the authorization URL: follow it back to HubOS's loopback. */
async function openInBrowser(url: string): Promise<string> {
  const response = await fetch(url);
  return response.text();
}

async function boot(mcpConfig: McpConfig, store: Store, logger: Logger): Promise<Kernel> {
  const kernel = await bootKernel({ store, logger, plugins: [mcp()], config: { mcp: mcpConfig } });
  kernels.push(kernel);
  return kernel;
}

function tempStorePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hubos-oauth-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'store.db');
}

const call = (kernel: Kernel, tool: string) =>
  executeTool(
    kernel.registry,
    tool,
    {},
    {
      signal: new AbortController().signal,
      agentId: 'a',
      sandbox: kernel.sandbox,
      store: kernel.store,
    },
  );

describe('mcp client: OAuth for HTTP servers', () => {
  it('signs in through a browser (registration, PKCE, loopback), keeps the tokens in the Store across a restart, refreshes them, and logs none', async () => {
    const server = await oauthServer();
    const path = tempStorePath();
    const logger = fullLogger();
    const asked: McpAuthorizationRequest[] = [];
    const config = (onAuthorize: McpConfig['onAuthorize']): McpConfig => ({
      servers: { p: { url: server.url, headers: { 'x-api-key': 'k-123' } } },
      onAuthorize,
    });
    const first = await boot(
      config(async (request) => {
        asked.push(request);
        await openInBrowser(request.url);
      }),
      new SqliteStore(path),
      logger,
    );
    const status = first.service('mcp').clients.get('p')!;
    expect(status).toMatchObject({ state: 'ready', attempts: 0 });
    expect(status).not.toHaveProperty('authorization');
    expect(asked).toHaveLength(1);
    const authorization = new URL(asked[0]!.url);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(authorization.searchParams.get('resource')).toBe(server.url);
    expect(authorization.searchParams.get('scope')).toBe('mcp:tools');
    expect(logger.lines.some((line) => line.includes('needs authorization: open http://127.0.0.1:'))).toBe(
      true,
    );
    const clientId = [...server.provider.clients.keys()][0];
    expect(await call(first, 'p_whoami')).toEqual({ ok: true, output: `client ${clientId}` });
    expect(await first.store.list('mcp-oauth:p')).toEqual(['client', 'redirect', 'tokens']);
    // The API key header went to the MCP server only, never to the authorization server.
    expect(server.mcpHeaders.every((headers) => headers['x-api-key'] === 'k-123')).toBe(true);
    expect(server.authServerHeaders.length).toBeGreaterThan(0);
    expect(server.authServerHeaders.some((headers) => 'x-api-key' in headers)).toBe(false);
    await first.close();
    kernels.splice(kernels.indexOf(first), 1);

    // Restarted on the same store: signed in already, nobody is asked.
    const again = await boot(
      config(() => {
        throw new Error('nobody should be asked again');
      }),
      new SqliteStore(path),
      logger,
    );
    expect(again.service('mcp').clients.get('p')!.state).toBe('ready');
    expect(await call(again, 'p_whoami')).toEqual({ ok: true, output: `client ${clientId}` });
    // The access token runs out: the next call gets a 401, HubOS refreshes and calls again.
    server.provider.expireAccessTokens();
    expect(await call(again, 'p_whoami')).toEqual({ ok: true, output: `client ${clientId}` });
    expect(server.provider.given).toEqual({ authorization_code: 1, refresh_token: 1 });
    expect(asked).toHaveLength(1);

    const seen = [...logger.lines, JSON.stringify(again.service('mcp').clients.list())].join('\n');
    expect(server.provider.secrets.length).toBeGreaterThanOrEqual(3);
    for (const secret of server.provider.secrets) expect(seen).not.toContain(secret);
  });

  it("never sends a server's token to another URL configured under the same name", async () => {
    const one = await oauthServer();
    const other = await oauthServer();
    const path = tempStorePath();
    const logger = fullLogger();
    const browse: McpConfig['onAuthorize'] = async ({ url }) => void (await openInBrowser(url));
    const first = await boot(
      { servers: { p: { url: one.url } }, onAuthorize: browse },
      new SqliteStore(path),
      logger,
    );
    expect(first.service('mcp').clients.get('p')!.state).toBe('ready');
    await first.close();
    kernels.splice(kernels.indexOf(first), 1);
    const second = await boot(
      { servers: { p: { url: other.url } }, onAuthorize: browse },
      new SqliteStore(path),
      logger,
    );
    expect(second.service('mcp').clients.get('p')!.state).toBe('ready');
    const sent = other.mcpHeaders.map((headers) => headers.authorization ?? '').join('\n');
    for (const secret of one.provider.secrets) expect(sent).not.toContain(secret);
    expect(other.provider.given.authorization_code).toBe(1);
  });

  it('waits for a person: "authorizing" with the URL in its status; a late authorization connects', async () => {
    const server = await oauthServer();
    let asked: McpAuthorizationRequest | undefined;
    const kernel = await bootMcp({
      servers: { p: { url: server.url } },
      bootWaitMs: 0,
      onAuthorize: (request) => {
        asked = request;
      },
    });
    const clients = kernel.service('mcp').clients;
    await until(() => clients.get('p')!.state === 'authorizing', 'the authorization to be asked for');
    const status = clients.get('p')!;
    expect(status.authorization).toEqual({ url: asked!.url, expiresAt: asked!.expiresAt });
    expect(clients.degraded).toBe(true);
    // The loopback address takes only its own authorization's answer.
    const redirect = new URL(new URL(asked!.url).searchParams.get('redirect_uri')!);
    const forged = await fetch(`${redirect.href}?code=stolen&state=not-the-one`);
    expect(forged.status).toBe(400);
    // Over HTTP the URL (its `state`) is for an admin only: whoever holds it could end or take the sign-in.
    const hubos = new HubOS({
      kernel,
      name: 'test',
      port: 0,
      rateLimit: false,
      apiKeys: [
        { key: 'a'.repeat(32), id: 'admin', admin: true },
        { key: 'u'.repeat(32), id: 'user' },
      ],
    });
    const base = await hubos.serve();
    try {
      const statusAs = async (key: string) =>
        (await (
          await fetch(`${base}/api/mcp/servers/p`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { state: string; authorization?: unknown };
      expect(await statusAs('a'.repeat(32))).toMatchObject({
        state: 'authorizing',
        authorization: status.authorization,
      });
      const seenByUser = await statusAs('u'.repeat(32));
      expect(seenByUser.state).toBe('authorizing');
      expect(seenByUser).not.toHaveProperty('authorization');
    } finally {
      await hubos.close();
    }
    expect(await openInBrowser(asked!.url)).toContain('HubOS is authorized for MCP server');
    await until(() => clients.get('p')!.state === 'ready', 'the connection after the authorization');
    expect((await call(kernel, 'p_whoami')).ok).toBe(true);
  });

  it('steps up when a call needs more scope: asks a person anew rather than refreshing', async () => {
    const server = await oauthServer({ callScope: 'mcp:write' });
    const asked: string[] = [];
    const kernel = await bootMcp({
      servers: { p: { url: server.url } },
      onAuthorize: async ({ url }) => {
        asked.push(new URL(url).searchParams.get('scope') ?? '');
        await openInBrowser(url);
      },
    });
    expect(kernel.service('mcp').clients.get('p')!.state).toBe('ready');
    const result = await call(kernel, 'p_whoami');
    expect(result.ok).toBe(true);
    expect(asked).toEqual(['mcp:tools', 'mcp:write']);
    expect(server.provider.given).toEqual({ authorization_code: 2, refresh_token: 0 });
  });

  it('does not sign in with auth: false: the 401 is the reason it failed', async () => {
    const server = await oauthServer();
    const kernel = await bootMcp({
      servers: { p: { url: server.url, auth: false } },
      restart: { maxAttempts: 1 },
    });
    const status = kernel.service('mcp').clients.get('p')!;
    expect(status.state).toBe('failed');
    expect(status.error).toMatch(/answered HTTP 401 \(it wants authorization/);
  });

  it('refuses at boot an auth config that makes no way of signing in, saying what to set', async () => {
    const url = 'http://127.0.0.1:9/mcp';
    const cases: [McpConfig, RegExp][] = [
      [
        { servers: { p: { url, auth: { grant: 'client_credentials' } } } },
        /mcp\.servers\.p\.auth: grant "client_credentials" signs in as a registered client: set "clientId"/,
      ],
      [{ servers: { p: { url, auth: { grant: 'client_credentials', clientId: 'c' } } } }, /set exactly one/],
      [
        { servers: { p: { url, headers: { Authorization: 'Bearer x' }, auth: {} } } },
        /gets an "Authorization" header from "headers" already/,
      ],
      [
        {
          servers: {
            p: { url, auth: { grant: 'client_credentials', clientId: 'c', privateKey: 'not a key' } },
          },
        },
        /mcp\.servers\.p\.auth\.privateKey is not a PEM private key/,
      ],
      [
        { servers: { p: { url, auth: { clientId: 'c', privateKey: 'k' } } } },
        /set grant: "client_credentials"/,
      ],
      [{ servers: { p: { url, auth: { grant: 'password' } } } } as unknown as McpConfig, /mcp\.servers\.p/],
    ];
    for (const [config, message] of cases) {
      const booting = bootMcp(config);
      await expect(booting).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
      await expect(booting).rejects.toThrow(message);
    }
  });
});
