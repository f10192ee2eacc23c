import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { serveAll } from '../hubos/trust/helpers.ts';

const run = promisify(execFile);

describe('the official MCP conformance suite', () => {
  it('passes dns-rebinding-protection on /mcp', async () => {
    const { url } = await serveAll();
    const { stdout } = await run(
      process.execPath,
      [
        'node_modules/@modelcontextprotocol/conformance/dist/index.js',
        'server',
        '--url',
        `${url.replace('127.0.0.1', 'localhost')}/mcp`,
        '--scenario',
        'dns-rebinding-protection',
      ],
      { timeout: 60_000 },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the conformance suite failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(stdout).toMatch(/localhost-host-rebinding-rejected.*SUCCESS/);
    expect(stdout).toMatch(/localhost-host-valid-accepted.*SUCCESS/);
    expect(stdout).toMatch(/Passed: 2\/2, 0 failed/);
  }, 90_000);
});
