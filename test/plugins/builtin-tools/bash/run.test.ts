/** `bash` basics: output, exit codes, cwd, stdin, input validation. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../../plugins/builtin-tools/bash/index.ts';
import { invokeTool } from '../../../../testing/index.ts';
import { outputOf, tempWorkspace } from '../../../fixtures/bash/workspace.ts';
import { launcherKind } from './processes.ts';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace();
});
afterEach(() => ws.remove());

const run = (input: unknown, tool = bashTool()) => invokeTool(tool, input, { sandbox: ws.sandbox });

describe('bash tool', () => {
  it('declares its name, input and permission', () => {
    const tool = bashTool();
    expect(tool.name).toBe('bash');
    expect(tool.permissions).toEqual(['shell:exec']);
    expect(tool.inputSchema.required).toEqual(['command']);
    expect(tool.inputSchema.properties).toMatchObject({
      timeout: { type: 'integer', default: 120_000, minimum: 1, maximum: 600_000 },
    });
  });

  it('returns stdout, stderr, the exit code and the duration', async () => {
    const output = outputOf(await run({ command: 'echo out; echo err >&2' }));
    expect(output).toMatchObject({ exitCode: 0, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    expect(output.durationMs).toBeTypeOf('number');
    expect(output).not.toHaveProperty('truncated');
  });

  it('reports a non-zero exit as a normal result', async () => {
    const result = await run({ command: 'echo failing >&2; exit 3' });
    expect(result.ok).toBe(true);
    expect(outputOf(result)).toMatchObject({ exitCode: 3, stderr: 'failing\n', timedOut: false });
  });

  it('reports a command ended by a signal', async () => {
    const output = outputOf(await run({ command: 'kill -KILL $$' }));
    // In a PID namespace the shell's parent is our init, which reports it as a shell does: 128 + 9.
    if (launcherKind() === 'process-group')
      expect(output).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    else expect(output).toMatchObject({ exitCode: 137 });
    expect(output.timedOut).toBe(false);
    expect(output.note).toMatch(/SIGKILL/);
  });

  it('runs in the workspace, with bash', async () => {
    const output = outputOf(await run({ command: 'pwd; echo "$BASH_VERSION" | cut -c1' }));
    expect(output.stdout).toMatch(new RegExp(`^${ws.dir}\n\\d\n$`));
  });

  it('closes stdin, so a command reading it gets EOF instead of hanging', async () => {
    const output = outputOf(await run({ command: 'cat; read line; echo "read exit $?"', timeout: 10_000 }));
    expect(output).toMatchObject({ exitCode: 0, stdout: 'read exit 1\n', timedOut: false });
  });

  it('keeps multi-line scripts and quoting intact', async () => {
    const output = outputOf(
      await run({ command: "printf '%s|' \"a b\" 'c'\nfor i in 1 2; do echo $i; done" }),
    );
    expect(output.stdout).toBe('a b|c|1\n2\n');
  });

  it('fails clearly when the shell cannot start', async () => {
    const result = await run({ command: 'true' }, bashTool({ shell: '/nonexistent/bash' }));
    expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
    expect(!result.ok && result.error.message).toMatch(/could not start \/nonexistent\/bash/);
  });
});

describe('bash tool input', () => {
  it.each([
    ['a missing command', {}, /command/],
    ['an empty command', { command: '' }, /command/],
    ['a timeout above 600000 ms', { command: 'true', timeout: 600_001 }, /timeout/],
    ['a zero timeout', { command: 'true', timeout: 0 }, /timeout/],
    ['a fractional timeout', { command: 'true', timeout: 1.5 }, /timeout/],
    ['a timeout as a string', { command: 'true', timeout: '1000' }, /timeout/],
    ['an unknown property', { command: 'true', cwd: '/' }, /cwd/],
  ])('rejects %s before running anything', async (_name, input, mentions) => {
    const result = await run(input);
    expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    expect(!result.ok && result.error.message).toMatch(mentions);
  });

  it('accepts the largest timeout', async () => {
    expect(outputOf(await run({ command: 'true', timeout: 600_000 })).exitCode).toBe(0);
  });
});
