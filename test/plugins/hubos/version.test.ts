import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { hubosVersion } from '../../../core/index.ts';
import { HubOS } from '../../../plugins/hubos/hubos.ts';
import { HUBOS_BIN, hubos, ROOT, tempDir } from '../../helpers/run.ts';
import { connect, type Served, serveMcp } from '../mcp/server-helpers.ts';

/** What every surface must report: the version in HubOS's own package.json. */
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

let served: Served | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await served?.close();
  served = undefined;
});

describe("HubOS's version", () => {
  it('is read from package.json', () => {
    expect(PACKAGE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(hubosVersion()).toBe(PACKAGE_VERSION);
  });

  it('is what MCP initialize reports over HTTP, and what the A2A cards and OpenAPI say', async () => {
    served = await serveMcp();
    const { client } = await connect(served.url);
    cleanups.push(() => client.close());
    expect(client.getServerVersion()).toMatchObject({ name: 'hubos', version: PACKAGE_VERSION });

    const card = await fetch(`${served.url}/a2a/helper/.well-known/agent-card.json`, {
      headers: { 'A2A-Version': '1.0' },
    });
    expect(await card.json()).toMatchObject({ name: 'helper', version: PACKAGE_VERSION });
    // No A2A-Version header: the v0.3 card.
    const legacy = await fetch(`${served.url}/a2a/helper/.well-known/agent-card.json`);
    expect(await legacy.json()).toMatchObject({ protocolVersion: '0.3', version: PACKAGE_VERSION });

    const openapi = (await (await fetch(`${served.url}/api/openapi.json`)).json()) as {
      info: { version: string };
    };
    expect(openapi.info.version).toBe(PACKAGE_VERSION);
  });

  it('is what MCP initialize reports over stdio (hubos mcp)', async () => {
    const workspace = await tempDir('hubos-version-stdio-');
    cleanups.push(() => rm(workspace, { recursive: true, force: true }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HUBOS_BIN, 'mcp', '--config', join(ROOT, 'test/fixtures/mcp-serve/agent.config.ts')],
      cwd: workspace,
      env: { ...(process.env as Record<string, string>), HUBOS_TEST_WORKSPACE: workspace },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'version-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    expect(client.getServerVersion()).toMatchObject({ name: 'hubos', version: PACKAGE_VERSION });
  });

  it('is what hubos --version prints', async () => {
    const printed = await hubos(['--version'], ROOT);
    expect(printed.stdout.trim()).toBe(PACKAGE_VERSION);
  });

  it('gives way to a version the server is given', () => {
    expect(new HubOS().version).toBe(PACKAGE_VERSION);
    expect(new HubOS({ version: '9.9.9' }).version).toBe('9.9.9');
  });
});
