import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../../../plugins/mcp/index.ts';
import { hubos, tempDir, writeFiles } from '../../helpers/run.ts';
import { STDIO_FIXTURE } from './client-helpers.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A project whose agent.config.ts has these MCP servers (JSON), retrying fast. */
async function project(servers: Record<string, unknown> | undefined): Promise<string> {
  const dir = await tempDir('hubos-mcp-list-');
  dirs.push(dir);
  const mcp = servers ? `mcp: { servers: ${JSON.stringify(servers)}, restart: { initialDelayMs: 50 } },` : '';
  await writeFiles(dir, { 'agent.config.ts': `export default { ${mcp} };\n` });
  return dir;
}

const fixture = { command: process.execPath, args: [STDIO_FIXTURE] };

describe('hubos mcp list', () => {
  it('lists each server with its state and tools; exit 1 when one is not ready', async () => {
    const dir = await project({ fx: fixture, bad: { command: '/nonexistent/hubos-mcp-server' } });
    const result = await hubos(['mcp', 'list'], dir);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('2 MCP server(s):');
    expect(result.stdout).toContain(`fx  stdio  ready  (${process.execPath} ${STDIO_FIXTURE})`);
    expect(result.stdout).toMatch(/ {4}fx_echo {2}Echoes its text back\./);
    expect(result.stdout).toContain('bad  stdio  failed  (/nonexistent/hubos-mcp-server)');
    expect(result.stdout).toContain(
      '  error: cannot run "/nonexistent/hubos-mcp-server": not found (is it installed and on PATH?)',
    );
    expect(result.stdout).toMatch(/failed attempts in a row: \d+; next attempt in \d+ m?s/);
    expect(result.stderr).toContain('MCP server "bad" failed to start');
  });

  it('prints the statuses as JSON with --json, exit 0 when all are ready', async () => {
    const dir = await project({ fx: fixture });
    const result = await hubos(['mcp', 'list', '--json'], dir);
    expect(result.code, result.stderr).toBe(0);
    const { servers } = JSON.parse(result.stdout) as { servers: McpServerStatus[] };
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({ name: 'fx', transport: 'stdio', state: 'ready', attempts: 0 });
    expect(servers[0]!.tools).toContainEqual({
      name: 'fx_echo',
      tool: 'echo',
      description: 'Echoes its text back.',
    });
  });

  it('says so when no servers are configured', async () => {
    for (const servers of [undefined, {}]) {
      const dir = await project(servers);
      const result = await hubos(['mcp', 'list'], dir);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('No MCP servers configured');
    }
  });
});
