import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, run, tempDir, writeFiles } from '../helpers/run.ts';

it('the lint rule fails any core/ file that imports plugins/, and only core/ files', async () => {
  const dir = await tempDir('hubos-lint-');
  const uses = (from: string) =>
    `import { defaultPlugins } from '${from}';\n\nexport const x = defaultPlugins;\n`;
  await writeFiles(dir, {
    'biome.json': readFileSync(join(ROOT, 'biome.json'), 'utf8').replace(/"\$schema": "[^"]*",/, ''),
    'core/relative.ts': uses('../plugins/index.ts'),
    'core/tools/deep.ts': uses('../../plugins/defaults.ts'),
    'core/by-name.ts': uses('hubos/plugins'),
    'bin/allowed.ts': uses('../plugins/index.ts'),
  });
  const biome = join(ROOT, 'node_modules/.bin/biome');
  const result = await run(biome, ['lint', '--only=style/noRestrictedImports', '--max-diagnostics=50', '.'], {
    cwd: dir,
  });
  const output = result.stdout + result.stderr;
  expect(result.code).not.toBe(0);
  for (const file of ['core/relative.ts', 'core/tools/deep.ts', 'core/by-name.ts'])
    expect(output).toContain(file);
  expect(output).not.toContain('bin/allowed.ts');
  expect(output.match(/core\/ never imports from plugins\//g)).toHaveLength(3);
});
