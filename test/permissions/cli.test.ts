import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../bin/commands/run.ts';
import { hubos, tempDir, writeFiles } from '../helpers/run.ts';

// Plain objects, no imports: the same file loads in a child process and in this one.
const CONFIG = `export default {
  model: 'offline',
  store: { driver: 'memory' },
  permissions: { ask: ['fs:write'] },
  plugins: [{
    name: 'notes',
    apply(kernel) {
      kernel.hooks.registerTools.tap('notes', (registry) => registry.register({
        name: 'write', description: 'Writes a note.', permissions: ['fs:write'],
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        handler: (_ctx, { input }) => 'wrote ' + input.text,
      }));
    },
  }],
  agents: { helper: { tools: ['*'] } },
};
`;

async function project(): Promise<string> {
  const dir = await tempDir('hubos-run-approval-');
  await writeFiles(dir, { 'agent.config.mjs': CONFIG });
  return dir;
}

function capture(cwd: string) {
  let stdout = '';
  let stderr = '';
  return {
    cwd,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    get out() {
      return stdout;
    },
    get err() {
      return stderr;
    },
  };
}

describe('hubos run and approvals', () => {
  it('without a terminal, prints the request and denies it, saying why', async () => {
    const dir = await project();
    const result = await hubos(['run', 'helper', '/write {"text":"hi"}'], dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('? approval needed: write {"text":"hi"}\n');
    expect(result.stderr).toContain("  permissions: fs:write · rule ask 'fs:write'\n");
    expect(result.stderr).toContain('  denied: stdin is not a terminal, so nobody can answer');
    expect(result.stdout).toBe(
      'write failed: Error: denied by the user: hubos run cannot ask for approval without a terminal\n',
    );
  });

  it('on a terminal, prompts y/N and runs the call on "y"', async () => {
    const dir = await project();
    const io = capture(dir);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const done = runCommand(['helper', '/write {"text":"yes"}'], {}, io, new AbortController().signal, stdin);
    for (let i = 0; i < 400 && !io.err.includes('[y/N]'); i++) await new Promise((r) => setTimeout(r, 5));
    expect(io.err).toContain('  run write? [y/N] ');
    stdin.write('y\n');
    expect(await done).toBe(0);
    expect(io.out).toBe('write returned: wrote yes\n');
  });

  it('on a terminal, any other answer denies', async () => {
    const dir = await project();
    const io = capture(dir);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    stdin.write('\n');
    const code = await runCommand(
      ['helper', '/write {"text":"no"}'],
      { json: true },
      io,
      new AbortController().signal,
      stdin,
    );
    expect(code).toBe(0);
    expect(JSON.parse(io.out).toolCalls[0].error.message).toBe('denied by the user: answered no');
  });
});
