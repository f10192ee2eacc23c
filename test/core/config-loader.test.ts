import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfigExport } from '../../core/config.ts';
import { CONFIG_FILES, loadConfigFile } from '../../core/index.ts';
import { expectHubosRejection } from './helpers.ts';

const fixtureApp = fileURLToPath(new URL('../fixtures/config/app/', import.meta.url));
const loaderModule = fileURLToPath(new URL('../../core/config-loader.ts', import.meta.url));

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

/** A fresh folder under the OS temp dir holding `files` (path -> content); empty folders end in "/". */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'hubos-config-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    if (path.endsWith('/')) {
      await mkdir(target, { recursive: true });
    } else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
  }
  return root;
}

const configExporting = (value: object) => `export default ${JSON.stringify(value)};\n`;

/**
 * Runs loadConfigFile in a plain Node process. vitest compiles TypeScript itself (enums included),
 * so what Node's own type stripping accepts can only be seen outside it.
 */
async function loadInNode(options: { cwd: string; configFile?: string }) {
  const script = `
    const { loadConfigFile } = await import(${JSON.stringify(loaderModule)});
    try {
      const found = await loadConfigFile(${JSON.stringify(options)});
      console.log(JSON.stringify({ ok: true, found }));
    } catch (error) {
      console.log(JSON.stringify({ ok: false, code: error.code, message: error.message }));
    }`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: options.cwd,
  });
  return JSON.parse(stdout) as
    | { ok: true; found: { exported: unknown; file: string } | undefined }
    | { ok: false; code: string; message: string };
}

describe('loadConfigFile: searching', () => {
  it('looks for agent.config.ts, .mts, .cts, .js, .mjs and .cjs, in that order', () => {
    expect(CONFIG_FILES).toEqual([
      'agent.config.ts',
      'agent.config.mts',
      'agent.config.cts',
      'agent.config.js',
      'agent.config.mjs',
      'agent.config.cjs',
    ]);
  });

  it('finds the config from a nested cwd upwards', async () => {
    const root = await tree({
      'agent.config.ts': configExporting({ plugins: [], marker: 'root' }),
      'packages/app/src/deep/': '',
    });
    const found = await loadConfigFile({ cwd: join(root, 'packages/app/src/deep') });
    expect(found).toEqual({ exported: { plugins: [], marker: 'root' }, file: join(root, 'agent.config.ts') });
  });

  it('takes the nearest config on the way up', async () => {
    const root = await tree({
      'agent.config.ts': configExporting({ marker: 'root' }),
      'app/agent.config.js': configExporting({ marker: 'app' }),
      'app/src/': '',
    });
    const found = await loadConfigFile({ cwd: join(root, 'app/src') });
    expect(found?.file).toBe(join(root, 'app/agent.config.js'));
    expect(found?.exported).toEqual({ marker: 'app' });
  });

  it('prefers agent.config.ts over .js in the same folder', async () => {
    const root = await tree({
      'agent.config.js': configExporting({ from: 'js' }),
      'agent.config.ts': configExporting({ from: 'ts' }),
    });
    expect((await loadConfigFile({ cwd: root }))?.exported).toEqual({ from: 'ts' });
  });

  it.each(['agent.config.mts', 'agent.config.mjs'])('finds %s', async (name) => {
    const root = await tree({ [name]: configExporting({ from: name }) });
    expect(await loadConfigFile({ cwd: root })).toEqual({ exported: { from: name }, file: join(root, name) });
  });

  it('returns undefined when there is no config anywhere up the tree', async () => {
    const root = await tree({ 'a/b/': '' });
    expect(await loadConfigFile({ cwd: join(root, 'a/b') })).toBeUndefined();
  });

  it('ignores other config names (hubos.config.ts, .hubosrc.json)', async () => {
    const root = await tree({
      'hubos.config.ts': configExporting({ wrong: true }),
      '.hubosrc.json': '{"wrong": true}',
    });
    expect(await loadConfigFile({ cwd: root })).toBeUndefined();
  });

  it('returns a function export as it is, for the caller to call with { mode, command }', async () => {
    const root = await tree({
      'agent.config.ts':
        'export default ({ mode, command }: { mode: string; command: string }) => ({ mode, command });\n',
    });
    const found = await loadConfigFile({ cwd: root });
    expect(typeof found?.exported).toBe('function');
    expect(
      await resolveConfigExport(found?.exported, { mode: 'test', command: 'serve' }, found?.file),
    ).toEqual({
      mode: 'test',
      command: 'serve',
    });
  });

  it('loads a .ts config that imports another relative .ts module', async () => {
    const root = await tree({
      'agent.config.ts':
        "import { port } from './settings/port.ts';\nexport default { plugins: [], server: { port } };\n",
      'settings/port.ts': 'export const port: number = 8080;\n',
    });
    expect((await loadConfigFile({ cwd: root }))?.exported).toEqual({ plugins: [], server: { port: 8080 } });
  });

  it("loads the repo fixture, which imports 'hubos' and a sibling module", async () => {
    const found = await loadConfigFile({ cwd: fixtureApp });
    expect(found?.file).toBe(join(fixtureApp, 'agent.config.ts'));
    expect(
      await resolveConfigExport(found?.exported, { mode: 'test', command: 'serve' }, found?.file),
    ).toEqual({
      plugins: [
        '../../plugins/good-plugin.ts',
        ['../../plugins/factory-plugin.ts', { greeting: 'hi-test-serve' }],
        false,
      ],
    });
  });
});

describe('loadConfigFile: --config', () => {
  it('loads the given file, relative to cwd, whatever its name', async () => {
    const root = await tree({
      'agent.config.ts': configExporting({ from: 'searched' }),
      'configs/staging.ts': configExporting({ from: 'explicit' }),
    });
    expect(await loadConfigFile({ cwd: root, configFile: 'configs/staging.ts' })).toEqual({
      exported: { from: 'explicit' },
      file: join(root, 'configs/staging.ts'),
    });
  });

  it('loads an absolute path', async () => {
    const root = await tree({ 'my.config.mjs': configExporting({ from: 'abs' }) });
    const found = await loadConfigFile({ cwd: '/', configFile: join(root, 'my.config.mjs') });
    expect(found?.exported).toEqual({ from: 'abs' });
  });

  it('a missing file is CONFIG_NOT_FOUND naming the full path', async () => {
    const root = await tree({});
    const error = await expectHubosRejection(
      loadConfigFile({ cwd: root, configFile: 'nope.config.ts' }),
      'CONFIG_NOT_FOUND',
    );
    expect(error.message).toBe(`config file not found: ${join(root, 'nope.config.ts')}`);
    expect(error.details.file).toBe(join(root, 'nope.config.ts'));
  });

  it('a folder is CONFIG_NOT_FOUND too', async () => {
    const root = await tree({ 'configs/': '' });
    await expectHubosRejection(loadConfigFile({ cwd: root, configFile: 'configs' }), 'CONFIG_NOT_FOUND');
  });

  it.each(['agent.config.json', 'agent.config.yaml', 'agent.config.tsx', 'agent.config'])(
    'a file with the wrong extension (%s) is CONFIG_LOAD_FAILED naming the file and the accepted ones',
    async (name) => {
      const root = await tree({ [name]: '{}' });
      const error = await expectHubosRejection(
        loadConfigFile({ cwd: root, configFile: name }),
        'CONFIG_LOAD_FAILED',
      );
      expect(error.message).toContain(`cannot load ${join(root, name)}`);
      expect(error.message).toContain('.ts, .mts, .cts, .js, .mjs, .cjs');
    },
  );
});

describe('loadConfigFile: broken configs', () => {
  it.each([
    ['found by search', undefined],
    ['given with --config', 'agent.config.ts'],
  ])(
    'a config without a default export is CONFIG_INVALID naming the file (%s)',
    async (_label, configFile) => {
      const root = await tree({ 'agent.config.ts': 'export const config = { plugins: [] };\n' });
      const error = await expectHubosRejection(loadConfigFile({ cwd: root, configFile }), 'CONFIG_INVALID');
      expect(error.message).toBe(
        `${join(root, 'agent.config.ts')} has no default export: write export default defineConfig({ ... })`,
      );
    },
  );

  it('an empty config file is CONFIG_INVALID, not skipped in favour of a config further up', async () => {
    const root = await tree({
      'agent.config.ts': configExporting({ from: 'parent' }),
      'app/agent.config.ts': '\n',
    });
    const error = await expectHubosRejection(loadConfigFile({ cwd: join(root, 'app') }), 'CONFIG_INVALID');
    expect(error.message).toContain(`${join(root, 'app/agent.config.ts')} has no default export`);
  });

  it('a config that throws while loading is CONFIG_LOAD_FAILED naming the file and the cause', async () => {
    const root = await tree({ 'agent.config.ts': "throw new Error('OPENAI_API_KEY is not set');\n" });
    const error = await expectHubosRejection(loadConfigFile({ cwd: root }), 'CONFIG_LOAD_FAILED');
    // The throw's place in the config, and its line with a caret under the column.
    const file = join(root, 'agent.config.ts');
    expect(error.message).toBe(
      `cannot load ${file}: OPENAI_API_KEY is not set at ${file}:1:7\n` +
        "  1 | throw new Error('OPENAI_API_KEY is not set');\n" +
        '    |       ^',
    );
    expect((error.cause as Error).message).toBe('OPENAI_API_KEY is not set');
  });

  it('a config with a syntax error is CONFIG_LOAD_FAILED naming the file', async () => {
    const root = await tree({ 'agent.config.ts': 'export default { plugins: [ ;\n' });
    const error = await expectHubosRejection(loadConfigFile({ cwd: root }), 'CONFIG_LOAD_FAILED');
    expect(error.message).toContain(`cannot load ${join(root, 'agent.config.ts')}`);
  });

  it('a config importing a module that does not exist is CONFIG_LOAD_FAILED naming the file', async () => {
    const root = await tree({ 'agent.config.ts': "import './missing.ts';\nexport default {};\n" });
    const error = await expectHubosRejection(loadConfigFile({ cwd: root }), 'CONFIG_LOAD_FAILED');
    expect(error.message).toContain(`cannot load ${join(root, 'agent.config.ts')}`);
    expect(error.message).toContain('missing.ts');
  });
});

describe('loadConfigFile in plain Node (type stripping, as `hubos` runs it)', () => {
  it('a config with a TS enum fails with CONFIG_LOAD_FAILED explaining erasable syntax', async () => {
    const root = await tree({
      'agent.config.ts': "enum Mode { Fast = 'fast' }\nexport default { plugins: [], mode: Mode.Fast };\n",
    });
    const result = await loadInNode({ cwd: root });
    expect(result).toMatchObject({ ok: false, code: 'CONFIG_LOAD_FAILED' });
    const message = result.ok ? '' : result.message;
    expect(message).toContain(`cannot load ${join(root, 'agent.config.ts')}`);
    expect(message).toContain('enum');
    expect(message).toContain('use erasable syntax only, no enums or namespaces');
  });

  it('a .ts config importing a relative .ts module loads, found from a nested cwd', async () => {
    const root = await tree({
      'agent.config.ts':
        "import { limits } from './lib/limits.ts';\nconst config: { plugins: unknown[]; limits: typeof limits } = { plugins: [], limits };\nexport default config;\n",
      'lib/limits.ts': 'export const limits: { maxSteps: number } = { maxSteps: 8 };\n',
      'src/nested/': '',
    });
    expect(await loadInNode({ cwd: join(root, 'src/nested') })).toEqual({
      ok: true,
      found: { exported: { plugins: [], limits: { maxSteps: 8 } }, file: join(root, 'agent.config.ts') },
    });
  });

  it('a config without a default export is CONFIG_INVALID there too', async () => {
    const root = await tree({ 'agent.config.mjs': 'export const plugins = [];\n' });
    expect(await loadInNode({ cwd: root, configFile: 'agent.config.mjs' })).toMatchObject({
      ok: false,
      code: 'CONFIG_INVALID',
    });
  });
});
