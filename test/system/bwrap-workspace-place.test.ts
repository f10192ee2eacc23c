/**
 * The bash sandbox wherever the workspace is: under a folder only root may enter (a root server's
 * `/root/app/workspace`, a `mkdtemp` folder), as root and as an unprivileged user, and what the
 * server says at startup when the sandbox cannot reach the workspace. Needs Debian's bubblewrap;
 * the root cases skip, saying so, when not run as root.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../core/index.ts';
import { bashTool } from '../../plugins/builtin-tools/bash/index.ts';
import { invokeTool } from '../../testing/index.ts';
import { childScripts } from '../fixtures/bash/child-scripts.ts';
import { outputOf } from '../fixtures/bash/workspace.ts';

const ROOT = process.getuid?.() === 0;
const NOT_ROOT = 'needs root (CI runs as root)';
const AS_NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups', '--'];
const NOBODY = 65534;

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** `<parent>/ws`, where `parent` is a fresh 0700 folder owned by `owner`. */
function privateWorkspace(base: string, owner = 0): string {
  const parent = mkdtempSync(join(base, 'hubos-private-'));
  folders.push(parent);
  chmodSync(parent, 0o700);
  const ws = join(parent, 'ws');
  mkdirSync(ws);
  chownSync(parent, owner, owner);
  chownSync(ws, owner, owner);
  return ws;
}

const PROBE = 'pwd; echo kept > inside.txt; cat inside.txt; id -u';

describe('a root server, the workspace under a folder only root may enter', () => {
  it.for([
    ['a mkdtemp folder', () => tmpdir()],
    ["root's home", () => homedir()],
  ] as const)('runs sandboxed commands in %s', async ([, base], context) => {
    if (!ROOT) return context.skip(NOT_ROOT);
    const ws = privateWorkspace(base());
    const output = outputOf(
      await invokeTool(
        bashTool({ sandbox: { kind: 'bwrap' } }),
        { command: PROBE, timeout: 20_000 },
        { sandbox: createSandbox(ws) },
      ),
    );
    expect(output).toMatchObject({ exitCode: 0, stderr: '' });
    // At its own path, written through to the host, as nobody.
    expect(output.stdout).toBe(`${ws}\nkept\n${NOBODY}\n`);
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('kept\n');
    expect(statSync(join(ws, 'inside.txt')).uid).toBe(NOBODY);
  });
});

/** Node scripts run as another user or with fewer capabilities: they print one JSON line. */
describe('in other setups (child processes)', () => {
  let children: ReturnType<typeof childScripts>;
  beforeAll(() => {
    children = childScripts();
  });
  afterAll(() => children.remove());
  const script = (name: string, body: string) => children.script(name, body);
  // No home: the scripts find nothing of root's.
  const run = (command: string[]) => children.run(command, { HOME: '/nonexistent' }).json;

  const CALL = `const [ws, command] = process.argv.slice(2);
const { bashTool } = await repo('plugins/builtin-tools/bash/index.ts');
const { invokeTool } = await repo('testing/index.ts');
const { createSandbox } = await repo('core/index.ts');
const result = await invokeTool(bashTool({ sandbox: { kind: 'bwrap' } }), { command, timeout: 20000 }, { sandbox: createSandbox(ws) });
console.log(JSON.stringify(result.ok ? result.output : { error: result.error.message }));
`;

  it('runs sandboxed commands as an unprivileged user whose workspace is under its own 0700 folder', (context) => {
    if (!ROOT) return context.skip(`switching to nobody ${NOT_ROOT}`);
    const ws = privateWorkspace(tmpdir(), NOBODY);
    const output = run(['setpriv', ...AS_NOBODY, process.execPath, script('call', CALL), ws, PROBE]);
    expect(output).toMatchObject({ exitCode: 0, stdout: `${ws}\nkept\n${NOBODY}\n`, stderr: '' });
  });

  const BOOT = `const [ws, sandbox] = process.argv.slice(2);
const { createKernel, MemoryStore } = await repo('core/index.ts');
const { default: builtinTools } = await repo('plugins/builtin-tools/index.ts');
const warnings = [];
const logger = { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
let error;
let tools;
try {
  const config = { workspace: ws, ...(sandbox === 'auto' ? {} : { sandbox: { kind: sandbox } }), plugins: [builtinTools()] };
  const kernel = await createKernel({ logger, mode: 'test', store: new MemoryStore(), config }).boot();
  tools = kernel.registry.list().map((tool) => tool.name);
  await kernel.close();
} catch (caught) {
  error = { code: caught.code, message: caught.message };
}
console.log(JSON.stringify({ warnings, error, tools }));
`;
  /** Root without CAP_SYS_ADMIN (a container's root): it cannot make the mount namespace. */
  const WITHOUT_SYS_ADMIN = ['setpriv', '--bounding-set=-sys_admin', '--inh-caps=-sys_admin', '--'];

  type Boot = { warnings: string[]; error?: { code: string; message: string }; tools?: string[] };

  it('fails startup, saying how to fix it, when bwrap is configured and cannot reach the workspace', (context) => {
    if (!ROOT) return context.skip(NOT_ROOT);
    const ws = privateWorkspace(tmpdir());
    const parent = join(ws, '..');
    const boot = run([...WITHOUT_SYS_ADMIN, process.execPath, script('boot', BOOT), ws, 'bwrap']) as Boot;
    expect(boot.error?.code).toBe('CONFIG_INVALID');
    expect(boot.error?.message).toContain(`cannot run commands in the workspace ${ws}`);
    expect(boot.error?.message).toContain(`chmod o+x ${join(parent)}`);
    expect(boot.error?.message).toMatch(/CAP_SYS_ADMIN/);
  });

  it('does not offer bash, and says why, when the detected sandbox cannot reach the workspace', (context) => {
    if (!ROOT) return context.skip(NOT_ROOT);
    const ws = privateWorkspace(tmpdir());
    const boot = run([...WITHOUT_SYS_ADMIN, process.execPath, script('boot', BOOT), ws, 'auto']) as Boot;
    expect(boot.error).toBeUndefined();
    expect(boot.tools).not.toContain('bash');
    expect(boot.tools).toContain('filesystem_read');
    expect(boot.warnings.join('\n')).toMatch(
      /the bash tool is not registered: bubblewrap cannot run commands in the workspace/,
    );
  });

  it('fails startup, naming it, when a path in sandbox.expose is one the sandbox user cannot reach', (context) => {
    if (!ROOT) return context.skip(NOT_ROOT);
    const closed = privateWorkspace(tmpdir());
    const open = mkdtempSync(join(tmpdir(), 'hubos-open-'));
    folders.push(open);
    chmodSync(open, 0o755);
    const EXPOSE = `const [ws, exposed] = process.argv.slice(2);
const { checkSandbox } = await repo('plugins/builtin-tools/bash/index.ts');
let error;
try { checkSandbox({ sandbox: { kind: 'bwrap', expose: [exposed] } }); } catch (caught) { error = { code: caught.code, message: caught.message }; }
console.log(JSON.stringify({ error }));
`;
    const { error } = run([process.execPath, script('expose', EXPOSE), join(open, 'ws'), closed]) as Boot;
    expect(error?.code).toBe('CONFIG_INVALID');
    expect(error?.message).toContain(
      `The sandbox shows ${closed} (it is in sandbox.expose, or the shell), but uid ${NOBODY} (the sandbox's account) may not reach it`,
    );
  });

  it('starts with bash where the workspace is reachable, root without CAP_SYS_ADMIN too', (context) => {
    if (!ROOT) return context.skip(NOT_ROOT);
    const parent = mkdtempSync(join(tmpdir(), 'hubos-open-'));
    folders.push(parent);
    chmodSync(parent, 0o755);
    const boot = run([
      ...WITHOUT_SYS_ADMIN,
      process.execPath,
      script('boot', BOOT),
      join(parent, 'ws'),
      'bwrap',
    ]) as Boot;
    expect(boot.error).toBeUndefined();
    expect(boot.tools).toContain('bash');
    expect(existsSync(join(parent, 'ws'))).toBe(true);
  });
});
