import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubos, tempDir, writeFiles } from '../helpers/run.ts';

describe('hubos init', () => {
  it('writes a starter config that validates and registers its tool, in a folder without hubos installed', async () => {
    const dir = await tempDir();
    const init = await hubos(['init'], dir);
    expect(init.code).toBe(0);
    expect(readFileSync(join(dir, 'agent.config.ts'), 'utf8')).toContain("from 'hubos'");
    expect((await hubos(['validate'], dir)).code).toBe(0);
    const tools = JSON.parse((await hubos(['tools', '--json'], dir)).stdout) as { name: string }[];
    expect(tools.map((tool) => tool.name).at(-1)).toBe('dice_roll');
    expect(tools).toHaveLength(12); // the eleven built-in tools, then the config's
  });

  it('writes what an app needs around its files: tsconfig, ignores, scripts, an agent description', async () => {
    const dir = await tempDir();
    const init = await hubos(['init'], dir);
    expect(init.code, init.stderr).toBe(0);
    const tsconfig = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'));
    // What Node.js's type stripping runs: imports keep their .ts extension, erasable syntax only.
    expect(tsconfig.compilerOptions).toMatchObject({
      module: 'NodeNext',
      noEmit: true,
      allowImportingTsExtensions: true,
      erasableSyntaxOnly: true,
      types: ['node'],
    });
    expect(readFileSync(join(dir, '.gitignore'), 'utf8').split('\n')).toEqual(
      expect.arrayContaining(['node_modules/', '.hubos/', 'workspace/']),
    );
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.scripts).toMatchObject({ pretest: 'hubos validate', typecheck: 'tsc' });
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(['@types/node', 'typescript']);
    expect(init.stdout).toContain('tsconfig.json       for the editor and npm run typecheck');
    expect(init.stdout).toContain('npm install                                   # installs hubos');
    // The chat page shows it for the agent (test/e2e/first-hour.test.ts reads it from the server).
    expect(readFileSync(join(dir, 'agent.config.ts'), 'utf8')).toContain(
      "description: 'A friendly assistant that rolls dice on request.'",
    );
  });

  it('never overwrites an existing config without --force', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'agent.config.ts': '// mine\n' });
    const again = await hubos(['init'], dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    expect(readFileSync(join(dir, 'agent.config.ts'), 'utf8')).toBe('// mine\n');
    expect((await hubos(['init', '--force'], dir)).code).toBe(0);
    expect(readFileSync(join(dir, 'agent.config.ts'), 'utf8')).toContain('dice_roll');
  });
});

describe('hubos init in folders that are not empty', () => {
  it('refuses a package.json that is not a JSON object, naming it, and writes nothing', async () => {
    for (const [content, says] of [
      ['{\n  // a comment\n  "name": "x"\n}\n', 'is not valid JSON'],
      ['[]\n', 'must hold a JSON object, not an array'],
      ['null\n', 'must hold a JSON object, not null'],
      ['{ "scripts": "x" }\n', '"scripts" must be an object'],
    ] as const) {
      const dir = await tempDir();
      await writeFiles(dir, { 'package.json': content });
      const result = await hubos(['init'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${join(dir, 'package.json')}`);
      expect(result.stderr).toContain(says);
      expect(result.stderr).toContain('Nothing was written.');
      expect(readdirSync(dir)).toEqual(['package.json']);
      expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(content);
    }
  });

  it('refuses a file standing where a folder of the app goes, writing nothing', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { test: 'a file named test' });
    const result = await hubos(['init'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(dir, 'test')} is a file`);
    expect(readdirSync(dir)).toEqual(['test']);
  });

  it('keeps an app with CommonJS scripts CommonJS, and writes its files as .mts', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'package.json': '{ "name": "legacy", "version": "1.0.0", "main": "index.js" }\n',
      'src/index.js': "const os = require('node:os');\nmodule.exports = os.platform();\n",
    });
    const result = await hubos(['init'], dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`"type" stays as it is: ${join(dir, 'src/index.js')} is CommonJS`);
    for (const file of ['agent.config.mts', 'plugins/dice.mts', 'test/dice.test.mts']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    expect(readFileSync(join(dir, 'test/dice.test.mts'), 'utf8')).toContain("from '../plugins/dice.mts'");
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.type).toBeUndefined();
    expect(pkg.scripts.test).toBe('node --test "test/**/*.test.mts"');
    const tools = JSON.parse((await hubos(['tools', '--json'], dir)).stdout) as { name: string }[];
    expect(tools.map((tool) => tool.name).at(-1)).toBe('dice_roll');
  });

  it("keeps an app's own test script, and adds no pretest before it", async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'package.json': '{ "name": "mine", "type": "module", "scripts": { "test": "vitest run" } }\n',
    });
    expect((await hubos(['init'], dir)).code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.scripts).toEqual({ test: 'vitest run', start: 'hubos serve', typecheck: 'tsc' });
  });

  it("names a new package after the folder, in npm's alphabet", async () => {
    const parent = await tempDir();
    const dir = join(parent, 'Été Agents!');
    await mkdir(dir);
    expect((await hubos(['init'], dir)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name).toBe('ete-agents');
  });
});

describe('hubos create-plugin', () => {
  it('scaffolds a package with a plugin factory, a test, a build and hubos as a peer dependency', async () => {
    const dir = await tempDir();
    const result = await hubos(['create-plugin', '@acme/hubos-plugin-weather'], dir);
    expect(result.code).toBe(0);
    const root = join(dir, 'hubos-plugin-weather');
    for (const file of [
      'package.json',
      'tsconfig.json',
      'src/index.ts',
      'test/plugin.test.ts',
      'README.md',
    ]) {
      expect(existsSync(join(root, file)), file).toBe(true);
    }
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('@acme/hubos-plugin-weather');
    expect(pkg.peerDependencies.hubos).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(readFileSync(join(root, 'src/index.ts'), 'utf8')).toContain("name: 'weather_greet'");
  });

  it('rejects a missing name, an invalid name and a non-empty target folder', async () => {
    const dir = await tempDir();
    const missing = await hubos(['create-plugin'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('create-plugin needs a package name');
    const invalid = await hubos(['create-plugin', 'Bad Name!'], dir);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('"Bad Name!" is not a valid npm package name');
    await writeFiles(dir, { 'taken/file.txt': 'x' });
    const taken = await hubos(['create-plugin', 'hubos-plugin-x', '--dir', 'taken'], dir);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('exists and is not empty');
    expect(readFileSync(join(dir, 'taken/file.txt'), 'utf8')).toBe('x');
  });
});
