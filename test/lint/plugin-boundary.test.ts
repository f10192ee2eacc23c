import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, run, tempDir, writeFiles } from '../helpers/run.ts';

const BIOME = join(ROOT, 'node_modules/.bin/biome');
const config = () => readFileSync(join(ROOT, 'biome.json'), 'utf8').replace(/"\$schema": "[^"]*",/, '');
const imports = (...from: string[]) =>
  `${from.map((path, i) => `import * as m${i} from '${path}';`).join('\n')}\n\nexport const all = [${from.map((_, i) => `m${i}`).join(', ')}];\n`;

it('the lint rule fails a plugin that imports another plugin past its index.ts, or core past core/index.ts', async () => {
  const dir = await tempDir('hubos-plugin-lint-');
  await writeFiles(dir, {
    'biome.json': config(),
    'plugins/cosmos/private-file.ts': imports('../hubos/kit/http-error.ts'),
    'plugins/mcp/server/deep.ts': imports('../../hubos/hooks.ts'),
    'plugins/stars/deep-core.ts': imports('../../core/agent/event-queue.ts'),
    'plugins/workflows/allowed.ts': imports(
      '../stars/index.ts',
      '../hubos/index.ts',
      '../../core/index.ts',
      './routes.ts',
      '@ag-ui/core/schemas',
    ),
    'plugins/hubos/own-files.ts': imports('./kit/http-error.ts', './routes/agents.ts'),
  });
  const result = await run(BIOME, ['lint', '--only=style/noRestrictedImports', '--max-diagnostics=50', '.'], {
    cwd: dir,
  });
  const output = result.stdout + result.stderr;
  expect(result.code).not.toBe(0);
  expect(output).toContain('plugins/cosmos/private-file.ts');
  expect(output).toContain('plugins/mcp/server/deep.ts');
  expect(output).toContain('plugins/stars/deep-core.ts');
  expect(output).not.toContain('plugins/workflows/allowed.ts');
  expect(output).not.toContain('plugins/hubos/own-files.ts');
  expect(output.match(/only through its public entry, plugins\/<name>\/index\.ts/g)).toHaveLength(2);
  expect(output.match(/only through its public entry, core\/index\.ts/g)).toHaveLength(1);
});

it('every plugin folder has its boundary rule in biome.json', () => {
  const folders = readdirSync(join(ROOT, 'plugins'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const ruled = (JSON.parse(config()) as { overrides: { includes: string[] }[] }).overrides.flatMap(
    (override) => override.includes.map((glob) => /^plugins\/([^/]+)\/\*\*$/.exec(glob)?.[1]).filter(Boolean),
  );
  expect(ruled.sort()).toEqual(folders.sort());
});
