import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HUBOS_BIN, hubos, tempDir, writeFiles } from '../helpers/run.ts';

const CONFIG = `import { defineConfig, definePlugin, defineTool } from 'hubos';

const tools = definePlugin({
  name: 'order-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('order-tools', (registry) => {
      registry.register(defineTool({
        name: 'order', description: 'Orders a shirt, asking for the details.',
        inputSchema: { type: 'object', properties: {} },
        handler: async (_ctx, tc) => {
          tc.log('info', 'asking for the details');
          return tc.elicit({
            message: 'Shirt details?\\u001b[2J',
            schema: {
              type: 'object',
              properties: {
                name: { type: 'string', title: 'Name on the shirt', minLength: 2 },
                copies: { type: 'integer', minimum: 1, default: 1 },
                size: { type: 'string', oneOf: [{ const: 'S', title: 'Small' }, { const: 'L', title: 'Large' }] },
                gift: { type: 'boolean', default: false },
              },
              required: ['name', 'size'],
            },
          });
        },
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

const OFFLINE = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '' };

async function project(): Promise<string> {
  const dir = await tempDir('hubos-ask-');
  await writeFiles(dir, { 'agent.config.ts': CONFIG });
  return dir;
}

/** util-linux `script` runs a command on a pseudo-terminal: the CLI then sees a real terminal. */
const hasScript = (() => {
  try {
    return execFileSync('script', ['--version'], { encoding: 'utf8' }).includes('util-linux');
  } catch {
    return false;
  }
})();

/**
 * `hubos run helper /order` on a terminal, typed at as a person would: each answer is written once
 * its prompt has shown. Resolves with everything the terminal showed and the exit code.
 */
function runOnTerminal(dir: string, dialogue: [prompt: string, typed: string][]) {
  const command = [process.execPath, HUBOS_BIN, 'run', 'helper', '/order'].map((a) => `'${a}'`).join(' ');
  const child: ChildProcess = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: dir,
    env: { ...process.env, ...OFFLINE, NO_COLOR: '1' },
  });
  let shown = '';
  let seen = 0;
  let step = 0;
  const next = () => {
    while (step < dialogue.length) {
      const [prompt, typed] = dialogue[step]!;
      const at = shown.indexOf(prompt, seen);
      if (at < 0) return;
      seen = at + prompt.length;
      step++;
      child.stdin!.write(typed);
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8');
    next();
  });
  return new Promise<{ code: number | null; shown: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, shown: shown.replaceAll('\r\n', '\n') }));
  });
}

describe.skipIf(!hasScript)('hubos run: a tool asks a question at the terminal', () => {
  it('asks field by field: defaults shown, Enter keeps them, wrong values asked again', async () => {
    const dir = await project();
    const { code, shown } = await runOnTerminal(dir, [
      ['answer it? [Y/n]', '\n'],
      ['Name on the shirt* (text): ', '\n'],
      ['(required)', 'A\n'],
      ['copies (whole number ≥ 1) [1]: ', 'two\n'],
      ['type a whole number', '\n'],
      ['size* (1-2 or a value): ', '2\n'],
      ['gift (y/n) [n]: ', 'y\n'],
      // "A" is too short for minLength 2: the core refuses it, and the form is asked again.
      ['answer it? [Y/n]', 'y\n'],
      ['Name on the shirt* (text): ', 'Ada\n'],
      ['copies (whole number ≥ 1) [1]: ', '3\n'],
      ['size* (1-2 or a value): ', 'S\n'],
      ['gift (y/n) [n]: ', '\n'],
    ]);
    expect(code).toBe(0);
    expect(shown).toContain('? order asks: Shirt details? [2J');
    expect(shown).not.toContain('\u001b[2J');
    expect(shown).toContain('    1) Small\n    2) Large');
    expect(shown).toContain('order [info] asking for the details');
    expect(shown).toMatch(/does not fit what was asked: .*name/);
    expect(shown).toContain(
      'order returned: {"action":"accept","content":{"name":"Ada","copies":3,"size":"S","gift":false}}',
    );
  });

  it('"n" declines the question', async () => {
    const dir = await project();
    const { code, shown } = await runOnTerminal(dir, [['answer it? [Y/n]', 'n\n']]);
    expect(code).toBe(0);
    expect(shown).toContain('order returned: {"action":"decline","reason":"declined at the terminal"}');
  });
});

describe('hubos run: a tool asks a question without a terminal', () => {
  it('declines it at once, saying why', async () => {
    const dir = await project();
    const result = await hubos(['run', 'helper', '/order'], dir, OFFLINE);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('? order asks a question; declined: stdin is not a terminal');
    expect(result.stdout).toContain(
      'order returned: {"action":"decline","reason":"hubos run cannot ask a question without a terminal"}',
    );
  });
});
