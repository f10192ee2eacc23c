import { existsSync, readFileSync } from 'node:fs';
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
