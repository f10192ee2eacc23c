import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { HUBOS_BIN, hubos, tempDir, writeFiles } from '../helpers/run.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const CONFIG = `export default {
  store: { path: 'data/hubos.db' },
  agents: { helper: { description: 'test agent' } },
};
`;

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

/** Starts `hubos serve` and resolves with its URL and output so far. */
async function start(dir: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  child = spawn(process.execPath, [HUBOS_BIN, 'serve', '--port', '0', ...args], {
    cwd: dir,
    env: { ...process.env, ...env },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (data: Buffer) => {
    output.stdout += data;
  });
  child.stderr!.on('data', (data: Buffer) => {
    output.stderr += data;
  });
  const exited = new Promise<number | null>((resolve) => child!.on('exit', resolve));
  await expect
    .poll(() => /listening on (\S+)/.test(output.stdout) || child!.exitCode !== null, { timeout: 10_000 })
    .toBe(true);
  const url = /listening on (\S+)/.exec(output.stdout)?.[1];
  return { url, output, exited };
}

describe('hubos serve', () => {
  it('serves the config, says where and which model, and stops gracefully on SIGTERM', async () => {
    const dir = await tempDir('hubos-serve-');
    await writeFiles(dir, { 'agent.config.mjs': CONFIG });
    const { url, output, exited } = await start(dir, [], {
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
      OPENAI_BASE_URL: '',
    });
    expect(output.stdout).toContain('agent      helper · model offline');
    const result = (await (
      await fetch(`${url}/api/agents/helper/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"input":"hi"}',
      })
    ).json()) as Json;
    expect(result.text).toContain('offline demo model');
    child!.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output.stderr).toContain('Stopped.');
  });

  it('refuses to bind beyond loopback without API keys, and binds with them', async () => {
    const dir = await tempDir('hubos-serve-');
    await writeFiles(dir, { 'agent.config.mjs': CONFIG });
    const refused = await hubos(['serve', '--port', '0', '--host', '0.0.0.0'], dir, { HUBOS_API_KEYS: '' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refusing to listen on 0.0.0.0 without API keys');
    const { url } = await start(dir, ['--host', '0.0.0.0'], { HUBOS_API_KEYS: 'serve-test-key-0123456789' });
    const port = new URL(url!).port;
    expect((await fetch(`http://127.0.0.1:${port}/api/agents`)).status).toBe(401);
    const ok = await fetch(`http://127.0.0.1:${port}/api/agents`, {
      headers: { authorization: 'Bearer serve-test-key-0123456789' },
    });
    expect(ok.status).toBe(200);
  });

  it('rejects a bad --port as a usage error', async () => {
    const dir = await tempDir('hubos-serve-');
    const result = await hubos(['serve', '--port', 'eighty'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--port must be a whole number from 0 to 65535 (0 picks a free port), got "eighty"',
    );
  });
});
