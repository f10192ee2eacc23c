import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HUBOS_BIN, hubos, tempDir, writeFiles } from '../helpers/run.ts';

const CONFIG = `import { defineConfig, definePlugin, defineTool } from 'hubos';

const tools = definePlugin({
  name: 'test-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('test-tools', (registry) => {
      registry.register(defineTool({
        name: 'echo', description: 'Echoes its text.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        handler: (_ctx, { input }) => ({ echoed: input.text }),
      }));
      registry.register(defineTool({
        name: 'wait', description: 'Waits until cancelled.',
        inputSchema: { type: 'object', properties: {} },
        handler: ({ signal }) => new Promise((_, reject) => {
          process.stderr.write('waiting\\n');
          const busy = setInterval(() => {}, 1000); // like real work, it keeps the process alive
          signal.addEventListener('abort', () => { clearInterval(busy); reject(new Error('stopped')); });
        }),
      }));
    });
  },
});

export default defineConfig({
  plugins: [tools],
  store: { path: 'data/hubos.db' },
  agents: { helper: { description: 'test agent', tools: ['*'] } },
});
`;

async function project(): Promise<string> {
  const dir = await tempDir('hubos-run-');
  await writeFiles(dir, { 'agent.config.ts': CONFIG });
  return dir;
}

describe('hubos run', () => {
  it('streams the answer to stdout and tool calls to stderr, naming the model', async () => {
    const dir = await project();
    const result = await hubos(['run', 'helper', '/echo {"text":"hi there"}'], dir, {
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
      OPENAI_BASE_URL: '',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('echo returned: {"echoed":"hi there"}\n');
    expect(result.stderr).toContain('agent "helper" · model offline (the offline demo model');
    expect(result.stderr).toContain('→ echo {"text":"hi there"}');
    expect(result.stderr).toMatch(/✓ echo \(\d+ ms\)/);
  });

  it('--json prints the run result', async () => {
    const dir = await project();
    const result = await hubos(['run', 'helper', '/echo', '{"text":"x"}', '--json'], dir);
    expect(result.code).toBe(0);
    const run = JSON.parse(result.stdout);
    expect(run).toMatchObject({
      agent: 'helper',
      status: 'completed',
      steps: 2,
      toolCalls: [{ name: 'echo', ok: true, output: { echoed: 'x' } }],
    });
  });

  it('shows a tool error result and still completes', async () => {
    const dir = await project();
    const result = await hubos(['run', 'helper', '/echo {"text": 5}'], dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      '✗ echo: invalid input for tool "echo": "text" must be string, got integer 5',
    );
  });

  it('continues a session across processes, through the SQLite store', async () => {
    const dir = await project();
    expect((await hubos(['run', 'helper', '/echo {"text":"one"}', '--session', 's1'], dir)).code).toBe(0);
    const second = await hubos(['run', 'helper', 'hello', '--session', 's1', '--json'], dir);
    const messages = JSON.parse(second.stdout).messages;
    expect(messages).toHaveLength(2);
    const third = await hubos(['run', 'helper', '/echo {"text":"three"}', '--session', 's1', '--json'], dir);
    expect(JSON.parse(third.stdout).status).toBe('completed');
    const other = await hubos(['run', 'helper', 'hi', '--session', 's2', '--json'], dir);
    expect(JSON.parse(other.stdout).messages).toHaveLength(2);
  });

  it('exits 1 for an unknown agent, 2 without a message', async () => {
    const dir = await project();
    const unknown = await hubos(['run', 'nobody', 'hi'], dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no agent named "nobody" (agents: helper) [AGENT_NOT_FOUND]');
    const missing = await hubos(['run', 'helper'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('run needs an agent and a message');
  });

  it('Ctrl-C cancels the run: exit 130, "cancelled"', async () => {
    const dir = await project();
    const child = spawn(process.execPath, [HUBOS_BIN, 'run', 'helper', '/wait'], { cwd: dir });
    let stderr = '';
    let interrupted = false;
    child.stderr.on('data', (data: Buffer) => {
      stderr += data;
      // One Ctrl-C: each later chunk still holds 'waiting', and more Ctrl-Cs would exit at once
      // (the second) or kill it by the signal (one after that).
      if (!interrupted && stderr.includes('waiting')) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(130);
    expect(stderr).toContain('cancelled');
  });
});
