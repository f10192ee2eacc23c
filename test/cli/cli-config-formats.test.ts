/**
 * A config loads in any app layout: whatever its package.json says about modules ("type":
 * "commonjs" as `npm init -y` writes it, "module", none, or no package.json at all), in each of
 * the six extensions, importing a local file of its own. Real `hubos` processes in fresh folders.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubos, tempDir, writeFiles } from '../helpers/run.ts';

const ESM_TS = `import { defineConfig } from 'hubos';
import { tool } from './tool-plugin.ts';
const label: string = 'esm-ts';
export default defineConfig({ plugins: [tool(label)] });
`;
const ESM_JS = `import { defineConfig } from 'hubos';
import { tool } from './tool-plugin.js';
export default defineConfig({ plugins: [tool('esm-js')] });
`;
const CJS_TS = `const { defineConfig } = require('hubos');
const { tool } = require('./tool-plugin.cts');
const label: string = 'cjs-ts';
module.exports = defineConfig({ plugins: [tool(label)] });
`;
const CJS_JS = `const { defineConfig } = require('hubos');
const { tool } = require('./tool-plugin.cjs');
module.exports = defineConfig({ plugins: [tool('cjs-js')] });
`;

/** A local plugin module registering a tool named after where it was loaded from. */
const plugin = (kind: 'esm' | 'cjs', typed: boolean) => {
  const param = typed ? 'label: string' : 'label';
  const body = `{
  name: 'local-' + label,
  apply(kernel) {
    kernel.hooks.registerTools.tap('local', (registry) =>
      registry.register({ name: 'from_' + label.replace('-', '_'), description: 'A local tool.', inputSchema: { type: 'object' }, handler: () => label }),
    );
  },
}`;
  return kind === 'esm'
    ? `export function tool(${param}) { return ${body}; }\n`
    : `exports.tool = function tool(${param}) { return ${body}; };\n`;
};

const LAYOUTS = {
  'npm init -y ("type": "commonjs")': '{ "name": "app", "version": "1.0.0", "type": "commonjs" }\n',
  'a package.json without "type"': '{ "name": "app", "version": "1.0.0" }\n',
  '"type": "module"': '{ "name": "app", "version": "1.0.0", "type": "module" }\n',
  'no package.json': undefined,
} as const;

/** Each config file, what it contains, and the local module it imports. */
const CONFIGS: Record<string, { config: string; files: Record<string, string>; tool: string }> = {
  'agent.config.ts': {
    config: ESM_TS,
    files: { 'tool-plugin.ts': plugin('esm', true) },
    tool: 'from_esm_ts',
  },
  'agent.config.mts': {
    config: ESM_TS.replace('./tool-plugin.ts', './tool-plugin.mts'),
    files: { 'tool-plugin.mts': plugin('esm', true) },
    tool: 'from_esm_ts',
  },
  'agent.config.cts': {
    config: CJS_TS,
    files: { 'tool-plugin.cts': plugin('cjs', true) },
    tool: 'from_cjs_ts',
  },
  'agent.config.js': {
    config: ESM_JS,
    files: { 'tool-plugin.js': plugin('esm', false) },
    tool: 'from_esm_js',
  },
  'agent.config.mjs': {
    config: ESM_JS.replace('./tool-plugin.js', './tool-plugin.mjs'),
    files: { 'tool-plugin.mjs': plugin('esm', false) },
    tool: 'from_esm_js',
  },
  'agent.config.cjs': {
    config: CJS_JS,
    files: { 'tool-plugin.cjs': plugin('cjs', false) },
    tool: 'from_cjs_js',
  },
};

describe('configs load in any app layout', () => {
  for (const [layout, packageJson] of Object.entries(LAYOUTS)) {
    it(`with ${layout}: every config extension loads, with the local module it imports`, async () => {
      for (const [name, { config, files, tool }] of Object.entries(CONFIGS)) {
        const app = await tempDir('hubos-layout-');
        await writeFiles(app, {
          ...(packageJson ? { 'package.json': packageJson } : {}),
          [name]: config,
          ...files,
        });
        const result = await hubos(['tools', '--json'], app);
        expect(result.code, `${name}: ${result.stderr}`).toBe(0);
        const names = (JSON.parse(result.stdout) as { name: string }[]).map((t) => t.name);
        expect(names, name).toContain(tool);
      }
    });
  }

  it('an ES-module app imports a local plugin from a sub-folder that npm init -y made "type": "commonjs"', async () => {
    const app = await tempDir('hubos-layout-');
    await writeFiles(app, {
      'package.json': LAYOUTS['"type": "module"'],
      'agent.config.ts': ESM_TS.replace('./tool-plugin.ts', './sub/tool-plugin.ts'),
      'sub/package.json': LAYOUTS['npm init -y ("type": "commonjs")'],
      'sub/tool-plugin.ts': plugin('esm', true),
    });
    const result = await hubos(['tools', '--json'], app);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { name: string }[]).map((t) => t.name)).toContain('from_esm_ts');
  });

  it("keeps the compile cache in the user's own cache folder, private, not in the shared temp folder", async () => {
    const app = await tempDir('hubos-layout-');
    const home = await tempDir('hubos-home-');
    await writeFiles(app, {
      'package.json': LAYOUTS['"type": "module"'],
      'agent.config.ts': ESM_TS,
      ...CONFIGS['agent.config.ts']!.files,
    });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CACHE_HOME: '', NODE_COMPILE_CACHE: '' };
    delete env.NODE_DISABLE_COMPILE_CACHE;
    const result = await hubos(['tools', '--json'], app, env);
    expect(result.code, result.stderr).toBe(0);
    const cache = join(home, '.cache/hubos/compile-cache');
    expect((await stat(cache)).mode & 0o777).toBe(0o700);
    expect((await readdir(cache)).length).toBeGreaterThan(0);
  });

  it('a .js config in CommonJS syntax under "type": "module" says how to fix it', async () => {
    const app = await tempDir('hubos-layout-');
    await writeFiles(app, {
      'package.json': '{ "name": "app", "type": "module" }\n',
      'agent.config.js': 'module.exports = { plugins: [] };\n',
    });
    const result = await hubos(['tools'], app);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('module is not defined in ES module scope');
    expect(result.stderr).toContain('rename it to agent.config.cjs to keep require/module.exports');
  });

  it('CommonJS files whose words look like import/export stay CommonJS', async () => {
    const app = await tempDir('hubos-layout-');
    await writeFiles(app, {
      'package.json': '{ "name": "app", "type": "commonjs" }\n',
      'lib.js': [
        "const importer = require('node:path');",
        "const imports = [importer.join('a', 'b')];",
        '// import.meta is for ES modules',
        'const note = `',
        'export default nothing: this is a string',
        '`;',
        'module.exports = { greeting: imports[0] + note.length };',
        '',
      ].join('\n'),
      'agent.config.cjs':
        "const { greeting } = require('./lib.js');\nmodule.exports = { agents: { a: { instructions: greeting } } };\n",
    });
    const result = await hubos(['validate'], app);
    expect(result.code, result.stderr).toBe(0);
  });

  it('a .js file in CommonJS syntax under "type": "commonjs" stays CommonJS', async () => {
    const app = await tempDir('hubos-layout-');
    await writeFiles(app, {
      'package.json': '{ "name": "app", "type": "commonjs" }\n',
      'agent.config.js': CJS_JS.replace('./tool-plugin.cjs', './tool-plugin.js'),
      'tool-plugin.js': plugin('cjs', false),
    });
    const result = await hubos(['tools', '--json'], app);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { name: string }[]).map((t) => t.name)).toContain('from_cjs_js');
  });
});
