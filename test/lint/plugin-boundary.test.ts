import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, run, tempDir, writeFiles } from '../helpers/run.ts';

const BIOME = join(ROOT, 'node_modules/.bin/biome');
const config = () => readFileSync(join(ROOT, 'biome.json'), 'utf8').replace(/"\$schema": "[^"]*",/, '');
const imports = (...from: string[]) =>
  `${from.map((path, i) => `import * as m${i} from '${path}';`).join('\n')}\n\nexport const all = [${from.map((_, i) => `m${i}`).join(', ')}];\n`;

it('the lint rule fails a plugin that imports another plugin past its index.ts, or core past core/index.ts and core/internal.ts', async () => {
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
      '../../core/internal.ts',
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

it('every plugin folder has its boundary rule in biome.json, forbidding the internals of every other one', () => {
  const folders = readdirSync(join(ROOT, 'plugins'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  type Override = {
    includes: string[];
    linter?: {
      rules?: { style?: { noRestrictedImports?: { options?: { patterns?: { group: string[] }[] } } } };
    };
  };
  const rules = new Map<string, string[]>();
  for (const override of (JSON.parse(config()) as { overrides: Override[] }).overrides) {
    const folder = override.includes.map((glob) => /^plugins\/([^/]+)\/\*\*$/.exec(glob)?.[1]).find(Boolean);
    const groups = override.linter?.rules?.style?.noRestrictedImports?.options?.patterns ?? [];
    if (folder)
      rules.set(
        folder,
        groups.flatMap((pattern) => pattern.group),
      );
  }
  expect([...rules.keys()].sort()).toEqual(folders);
  for (const folder of folders) {
    const others = folders.filter((other) => other !== folder);
    const forbidden = (rules.get(folder) ?? []).map(
      (glob) => /^\.\.\/\*\*\/([^/!*]+)\/\*\*$/.exec(glob)?.[1],
    );
    expect(forbidden.filter(Boolean).sort(), `plugins/${folder}`).toEqual(['core', ...others].sort());
  }
});
