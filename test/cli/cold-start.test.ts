/**
 * A command loads only what it needs: `hubos --version` and `hubos --help` answer before the CLI,
 * the kernel or any dependency loads; a plugin's heavy modules (protocol SDKs, MCP, the workflow
 * engine, the teams) load when a config turns the plugin on or a request needs them, not with
 * `hubos/plugins`. Each module the process loads is recorded by a module hook.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HUBOS_BIN, ROOT, run, tempDir } from '../helpers/run.ts';

const RECORDER = pathToFileURL(`${ROOT}test/fixtures/cold-start/record-loads.mjs`).href;

/** The repo's and node_modules' modules a `hubos` command loads, relative to the repo. */
async function loadedBy(
  args: string[],
  cwd?: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ stdout: string; modules: string[] }> {
  const result = await run(process.execPath, ['--import', RECORDER, ...args], {
    cwd: cwd ?? (await tempDir()),
    ...(env ? { env } : {}),
  });
  expect(result.code, result.stderr).toBe(0);
  const root = pathToFileURL(ROOT).href;
  const modules = result.stderr
    .split('\n')
    .filter((line) => line.startsWith(`loaded ${root}`))
    .map((line) => line.slice(`loaded ${root}`.length));
  return { stdout: result.stdout, modules };
}

/** What no cold command of a config without MCP, teams, workflows or sub-agents may load. */
const HEAVY = [
  /^node_modules\/@modelcontextprotocol\//,
  /^node_modules\/@a2a-js\//,
  /^node_modules\/@ag-ui\//,
  /^node_modules\/@bufbuild\//,
  /^node_modules\/(zod|jose|execa|ioredis|pg)\//,
  /^plugins\/(mcp|cosmos|stars|workflows|subagent)\//,
  /^plugins\/hubos\/(a2a|agui)\/(?!index\.ts$)/,
];
const heavyIn = (modules: string[]) => modules.filter((path) => HEAVY.some((heavy) => heavy.test(path)));

describe('cold commands load only what they need', () => {
  it('hubos run of a one-agent config loads no protocol SDK and no plugin the config does not turn on', async () => {
    const app = await tempDir();
    await writeFile(join(app, 'agent.config.mjs'), 'export default { agents: { assistant: {} } };\n');
    const { stdout, modules } = await loadedBy([HUBOS_BIN, 'run', 'assistant', 'hello'], app);
    expect(stdout).toContain('offline demo model');
    expect(heavyIn(modules)).toEqual([]);
    // No telemetry configured, and nothing listens: no OpenTelemetry API nor SDK, no Node HTTP adapter.
    // Nor ajv: the config's keys are checked by precompiled code, the tools compile when called.
    const unused = /^node_modules\/(@opentelemetry\/|@hono\/node-server\/dist\/index|ajv\/dist\/ajv)/;
    expect(modules.filter((path) => unused.test(path))).toEqual([]);
  });

  it("a tool's input check compiled by one start is loaded from the schema cache by the next, which loads no ajv", async () => {
    const app = await tempDir();
    const cache = await tempDir();
    await writeFile(
      join(app, 'agent.config.mjs'),
      "export default { agents: { assistant: { tools: ['filesystem_read'] } } };\n",
    );
    await mkdir(join(app, 'workspace'));
    await writeFile(join(app, 'workspace', 'note.txt'), 'kept\n');
    const args = [HUBOS_BIN, 'run', 'assistant', '/filesystem_read {"path": "note.txt"}'];
    const ajvItself = (modules: string[]) =>
      modules.filter((path) => path === 'node_modules/ajv/dist/ajv.js');
    const first = await loadedBy(args, app, { XDG_CACHE_HOME: cache });
    expect(first.stdout).toContain('"content":"kept\\n"');
    expect(ajvItself(first.modules)).toHaveLength(1);
    const second = await loadedBy(args, app, { XDG_CACHE_HOME: cache });
    expect(second.stdout).toContain('"content":"kept\\n"');
    expect(ajvItself(second.modules)).toEqual([]);
    // Bad input is refused as the compiled check refuses it.
    const bad = await loadedBy([HUBOS_BIN, 'run', 'assistant', '/filesystem_read {"path": 7}'], app, {
      XDG_CACHE_HOME: cache,
    });
    expect(bad.stdout).toContain('"path" must be string, got integer 7');
  });

  it('hubos run --config of an ES-module app searches for nothing and looks at no file: no config search, no package resolver, no lexer', async () => {
    const app = await tempDir();
    await writeFile(join(app, 'package.json'), '{ "type": "module" }\n');
    await writeFile(join(app, 'app.config.mjs'), 'export default { agents: { assistant: {} } };\n');
    const { stdout, modules } = await loadedBy(
      [HUBOS_BIN, 'run', '--config', 'app.config.mjs', 'assistant', 'hello'],
      app,
    );
    expect(stdout).toContain('offline demo model');
    const loadedOnNeed = /^node_modules\/(cosmiconfig|import-meta-resolve|es-module-lexer)\//;
    expect(modules.filter((path) => loadedOnNeed.test(path))).toEqual([]);
  });

  it("import('hubos/plugins') loads no protocol SDK, nor MCP's client or server", async () => {
    const entry = pathToFileURL(`${ROOT}plugins/index.ts`).href;
    const { modules } = await loadedBy(['-e', `await import(${JSON.stringify(entry)})`]);
    expect(modules).toContain('plugins/index.ts');
    // The plugins' entries (factories, options, exported classes) load; what they run on does not.
    const loadedOnUse = [
      /^plugins\/mcp\/(apply\.ts|server\/|client\/(server-connection|session|transport)\.ts)/,
    ];
    expect(modules.filter((path) => /^node_modules\//.test(path) && heavyIn([path]).length > 0)).toEqual([]);
    expect(modules.filter((path) => loadedOnUse.some((heavy) => heavy.test(path)))).toEqual([]);
    expect(modules.filter((path) => /^plugins\/hubos\/(a2a|agui)\/(?!index\.ts$)/.test(path))).toEqual([]);
  });

  it('hubos --version loads the version guard and the version, nothing else', async () => {
    const { stdout, modules } = await loadedBy([HUBOS_BIN, '--version']);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(modules).toEqual(['bin/hubos.ts', 'bin/node-check.ts', 'core/node-version.ts', 'core/version.ts']);
  });

  it('hubos --help loads the usage text, nothing else', async () => {
    const { stdout, modules } = await loadedBy([HUBOS_BIN, '--help']);
    expect(stdout).toContain('Usage: hubos');
    expect(modules).toEqual(['bin/hubos.ts', 'bin/node-check.ts', 'core/node-version.ts', 'bin/usage.ts']);
  });

  it("a command's --help loads its help text, not the CLI or the kernel", async () => {
    const { stdout, modules } = await loadedBy([HUBOS_BIN, 'serve', '--help']);
    expect(stdout).toMatch(/^Usage: hubos serve /);
    expect(modules).toEqual(expect.arrayContaining(['bin/help-command.ts', 'bin/command-help.ts']));
    const heavier = /^(bin\/(cli|load-kernel)\.ts|bin\/commands\/|core\/index\.ts|plugins\/|node_modules\/)/;
    expect(modules.filter((path) => heavier.test(path))).toEqual([]);
  });

  it('a command loads its own module and not the other commands', async () => {
    const { modules } = await loadedBy([HUBOS_BIN, 'validate']);
    const commands = modules.filter((path) => path.startsWith('bin/commands/'));
    expect(commands).toEqual(['bin/commands/validate.ts']);
  });
});
