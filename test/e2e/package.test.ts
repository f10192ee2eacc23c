/**
 * The published shape, end to end: `npm pack` the repo, install the tarball into an empty
 * project (offline, from npm's cache), and use it from plain Node with no TypeScript tooling.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLOCK_FIXTURE, ROOT, type RunResult, run, tempDir, writeFiles } from '../helpers/run.ts';

// npm settings inherited from an outer `npm test` must not steer the inner npm commands.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

function npm(args: string[], cwd: string): Promise<RunResult> {
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: cleanEnv,
    timeout: 240_000,
  });
}

function expectOk(result: RunResult, what: string): void {
  expect(result.code, `${what} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
}

let app: string;
let tarball: string;

beforeAll(async () => {
  const packs = await tempDir('hubos-pack-');
  const pack = await npm(['pack', '--pack-destination', packs, '--json'], ROOT);
  expectOk(pack, 'npm pack');
  tarball = join(packs, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
  const clock = await npm(['pack', CLOCK_FIXTURE, '--pack-destination', packs, '--json'], packs);
  expectOk(clock, 'npm pack of the plugin fixture');
  const clockTarball = join(packs, (JSON.parse(clock.stdout) as { filename: string }[])[0]!.filename);

  app = await tempDir('hubos-app-');
  await writeFiles(app, { 'package.json': '{ "name": "app", "private": true, "type": "module" }\n' });
  expectOk(await npm(['install', '--offline', tarball, clockTarball], app), 'npm install of the tarballs');
}, 300_000);

describe('the npm package', () => {
  it('ships compiled JavaScript with type declarations, and no TypeScript sources', () => {
    const pkg = join(app, 'node_modules/hubos');
    for (const file of [
      'dist/core/index.js',
      'dist/core/index.d.ts',
      'dist/plugins/index.js',
      'dist/testing/index.d.ts',
      'dist/bin/hubos.js',
    ]) {
      expect(existsSync(join(pkg, file)), file).toBe(true);
    }
    expect(existsSync(join(pkg, 'core/index.ts'))).toBe(false);
  });

  it('is importable from plain Node: Registry, defineTool, createKernel, and the subpaths', async () => {
    await writeFiles(app, {
      'check.mjs': `
import { Registry, defineTool, createKernel, HubosError } from 'hubos';
import { defaultPlugins } from 'hubos/plugins';
import { bootKernel, invokeTool } from 'hubos/testing';
const registry = new Registry();
registry.register(defineTool({
  name: 'add', description: 'Adds two numbers.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number', default: 1 } }, required: ['a'] },
  handler: (_ctx, { input }) => input.a + input.b,
}));
let duplicate;
try { registry.register(registry.get('add')); } catch (error) { duplicate = HubosError.is(error, 'TOOL_DUPLICATE'); }
const kernel = await createKernel({ config: { plugins: [] }, plugins: defaultPlugins({}) }).boot();
await kernel.close();
console.log(JSON.stringify({
  tools: registry.list().map((tool) => tool.name),
  sum: await invokeTool(registry.get('add'), { a: 2 }),
  invalid: await invokeTool(registry.get('add'), { a: '2' }),
  duplicate,
  state: kernel.state,
  booted: typeof bootKernel,
}));
`,
    });
    const result = await run('node', ['check.mjs'], { cwd: app });
    expectOk(result, 'node check.mjs');
    expect(JSON.parse(result.stdout)).toEqual({
      tools: ['add'],
      sum: { ok: true, output: 3 },
      invalid: {
        ok: false,
        error: {
          code: 'TOOL_INPUT_INVALID',
          message:
            'invalid input for tool "add": "a" must be number, got string "2". Fix the arguments and call "add" again.',
        },
      },
      duplicate: true,
      state: 'closed',
      booted: 'function',
    });
  });

  it('installs a working hubos bin that loads an installed plugin package by name', async () => {
    await writeFiles(app, {
      'agent.config.ts': `import { defineConfig } from 'hubos';
export default defineConfig({ plugins: [['hubos-plugin-clock', { timezone: 'America/New_York' }]] });
`,
    });
    const bin = join(app, 'node_modules/.bin/hubos');
    const result = await run(bin, ['tools', '--json'], { cwd: app });
    expectOk(result, 'hubos tools');
    const tools = JSON.parse(result.stdout) as { name: string }[];
    expect(tools.map((tool) => tool.name).slice(-2)).toEqual(['clock_now', 'clock_convert']);
    const plain = await run(
      'node',
      [
        '--input-type=module',
        '-e',
        "import { bootKernel, invokeTool } from 'hubos/testing'; const k = await bootKernel({ config: { plugins: [['hubos-plugin-clock', { timezone: 'Asia/Kolkata' }]] } }); console.log(JSON.stringify(await invokeTool(k.registry.get('clock_convert'), { time: '2026-01-01T00:00:00Z', to: 'Asia/Kolkata' })));",
      ],
      { cwd: app },
    );
    expectOk(plain, 'plugin by name from plain Node');
    expect(JSON.parse(plain.stdout)).toMatchObject({
      ok: true,
      output: { timezone: 'Asia/Kolkata', iso: '2026-01-01T00:00:00.000Z' },
    });
    expect(JSON.parse(plain.stdout).output.formatted).toContain('5:30:00');
  });

  it('scaffolds a plugin with hubos create-plugin that builds and passes its own test', async () => {
    const bin = join(app, 'node_modules/.bin/hubos');
    expectOk(await run(bin, ['create-plugin', 'hubos-plugin-greeter'], { cwd: app }), 'create-plugin');
    const plugin = join(app, 'hubos-plugin-greeter');
    expectOk(await npm(['install', '--offline', tarball], plugin), 'npm install in the scaffold');
    expectOk(await npm(['run', 'build'], plugin), 'npm run build in the scaffold');
    expect(existsSync(join(plugin, 'dist/index.js'))).toBe(true);
    expect(existsSync(join(plugin, 'dist/index.d.ts'))).toBe(true);
    const test = await npm(['test'], plugin);
    expectOk(test, 'npm test in the scaffold');
    expect(test.stdout).toMatch(/pass 1\n/);
    expect(test.stdout).toMatch(/fail 0\n/);
  });
});
