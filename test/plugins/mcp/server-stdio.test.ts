import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { HUBOS_BIN, ROOT, tempDir } from '../../helpers/run.ts';
import { textOf } from './server-helpers.ts';

const CONFIG = join(ROOT, 'test/fixtures/mcp-serve/agent.config.ts');

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A temp workspace for the fixture config, and the environment that names it. */
async function workspace() {
  const dir = await tempDir('hubos-mcp-stdio-');
  dirs.push(dir);
  return { dir, env: { ...(process.env as Record<string, string>), HUBOS_TEST_WORKSPACE: dir } };
}

describe('hubos mcp (stdio)', () => {
  it('serves the config’s tools to the SDK client, under the permission policy, and stops when it closes', async () => {
    const { dir, env } = await workspace();
    writeFileSync(join(dir, 'hello.txt'), 'hello from the workspace\n');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HUBOS_BIN, 'mcp', '--config', CONFIG],
      cwd: dir,
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual([
        'filesystem_read',
        'filesystem_write',
        'filesystem_list',
        'filesystem_delete',
        'filesystem_search',
        'notes_add',
        'notes_list',
        'notes_find',
        'notes_show',
        'notes_forget',
        'noisy_say',
      ]);

      const read = await client.callTool({ name: 'filesystem_read', arguments: { path: 'hello.txt' } });
      expect(read.structuredContent).toMatchObject({ content: 'hello from the workspace\n' });
      expect(
        await client.callTool({ name: 'notes_add', arguments: { title: 'idea', text: 'mcp' } }),
      ).toMatchObject({ structuredContent: { saved: 'idea' } });
      const listed = await client.callTool({ name: 'notes_list', arguments: {} });
      expect(listed.structuredContent).toEqual({ titles: ['idea'] });

      const denied = await client.callTool({ name: 'filesystem_delete', arguments: { path: 'hello.txt' } });
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toContain(`rule deny 'fs:delete'`);
      expect(existsSync(join(dir, 'hello.txt'))).toBe(true);
      const asked = await client.callTool({
        name: 'filesystem_write',
        arguments: { path: 'x.txt', content: 'x' },
      });
      expect(asked.isError).toBe(true);
      expect(textOf(asked)).toContain('needs approval');

      const bash = await client.callTool({ name: 'bash', arguments: { command: 'echo hi' } });
      expect(bash.isError).toBe(true);
      expect(textOf(bash)).toContain('no tool named "bash" is served here');
    } finally {
      await client.close();
    }
    expect(stderr).toContain('serving 11 tool(s) over stdio');
    expect(stderr).toContain('the client closed stdin; stopping');
  });

  it('writes nothing but protocol to stdout, and exits 0 when stdin ends', async () => {
    const { env } = await workspace();
    const child = spawn(process.execPath, [HUBOS_BIN, 'mcp', '--config', CONFIG], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Resolves once a response with this id has arrived on stdout.
    const responses = new Map<number, () => void>();
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
      for (const line of stdout.split('\n')) {
        const id = /"id":(\d+)/.exec(line)?.[1];
        if (id) responses.get(Number(id))?.();
      }
    });
    const send = (message: object) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answered = (id: number) => new Promise<void>((resolve) => responses.set(id, resolve));

    const initialized = answered(1);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await initialized;
    send({ method: 'notifications/initialized' });
    const said = answered(2);
    send({ id: 2, method: 'tools/call', params: { name: 'noisy_say', arguments: { text: 'hi' } } });
    await said;
    child.stdin.end();

    expect(await exited).toBe(0);
    const lines = stdout.split('\n').filter((line) => line !== '');
    expect(lines.map((line) => JSON.parse(line).jsonrpc)).toEqual(['2.0', '2.0']);
    expect(JSON.parse(lines[1]!).result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(stderr).toContain('noisy plugin applied');
    expect(stderr).toContain('noisy says hi');
    expect(stderr).toContain('the client closed stdin; stopping');
  });
});
