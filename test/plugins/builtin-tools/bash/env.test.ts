/** `bash` commands see an allow-listed environment: never the server's API keys or secrets. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../../plugins/builtin-tools/bash/index.ts';
import { invokeTool } from '../../../../testing/index.ts';
import { outputOf, tempWorkspace } from '../../../fixtures/bash/workspace.ts';
import { launcherKind } from './processes.ts';

const FAKE = {
  OPENAI_API_KEY: 'sk-secret-test',
  ANTHROPIC_API_KEY: 'sk-ant-secret-test',
  HUBOS_API_KEYS: 'hubos-secret-key',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-test',
  HUBOS_TEST_SECRET: 'hush-secret-test',
  HUBOS_TEST_PASSED: 'visible-by-opt-in',
};
const saved = new Map<string, string | undefined>();

beforeAll(() => {
  for (const [name, value] of Object.entries(FAKE)) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
});
afterAll(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace();
});
afterEach(() => ws.remove());

async function envOf(tool = bashTool()): Promise<Map<string, string>> {
  const output = outputOf(await invokeTool(tool, { command: 'env -0' }, { sandbox: ws.sandbox }));
  expect(output.exitCode).toBe(0);
  const entries = output.stdout.split('\0').filter(Boolean);
  return new Map(
    entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

describe('bash environment', () => {
  it('holds no secret of the server, by name or by value', async () => {
    const env = await envOf();
    const text = [...env].map(([name, value]) => `${name}=${value}`).join('\n');
    for (const [name, value] of Object.entries(FAKE)) {
      expect(env.has(name), name).toBe(false);
      expect(text).not.toContain(value);
    }
    expect(text).not.toMatch(/secret-test/);
  });

  it('is an allow-list: PATH, HOME (the workspace), TERM, USER, SHELL and the locale', async () => {
    const env = await envOf();
    const allowed = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TZ', 'USER', 'SHELL'];
    // bash itself adds a few (PWD, SHLVL, _) and `env` sees them.
    const fromBash = ['PWD', 'OLDPWD', 'SHLVL', '_'];
    expect([...env.keys()].filter((name) => !allowed.includes(name) && !fromBash.includes(name))).toEqual([]);
    expect(env.get('HOME')).toBe(ws.dir);
    expect(env.get('SHELL')).toBe('/bin/bash');
    expect(env.get('PATH')).toBe(process.env.PATH);
  });

  it('keeps PATH working', async () => {
    const output = outputOf(
      await invokeTool(bashTool(), { command: 'command -v ls && ls -a' }, { sandbox: ws.sandbox }),
    );
    expect(output).toMatchObject({ exitCode: 0, stderr: '' });
    expect(output.stdout).toMatch(/\/ls\n/);
  });

  it('passes the names the operator lists in options.env, and only those', async () => {
    const env = await envOf(bashTool({ env: ['HUBOS_TEST_PASSED', 'HUBOS_TEST_UNSET'] }));
    expect(env.get('HUBOS_TEST_PASSED')).toBe('visible-by-opt-in');
    expect(env.has('HUBOS_TEST_UNSET')).toBe(false);
    expect(env.has('HUBOS_TEST_SECRET')).toBe(false);
    expect(env.has('OPENAI_API_KEY')).toBe(false);
  });

  it.each([
    ['by default', {}],
    ['unsandboxed', { sandbox: { kind: 'none' } }],
  ] as const)(
    "is out of reach through /proc too, %s: the server's process is not there",
    async (_mode, options) => {
      if (launcherKind(options) === 'process-group') return; // no PID namespace here: the startup warning says so
      const command = `cat /proc/${process.pid}/environ 2>&1; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c secret-test`;
      const output = outputOf(await invokeTool(bashTool(options), { command }, { sandbox: ws.sandbox }));
      expect(output.stdout).toBe(`cat: /proc/${process.pid}/environ: No such file or directory\n0\n`);
    },
  );
});
