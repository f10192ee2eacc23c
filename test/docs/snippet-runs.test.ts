// The blocks of README.md and docs/ marked run=... run as a reader would run them: in an app made
// from the packed package (`npm install <tarball>`, then `npx hubos init`, whose local plugin
// blocks may import), with the packages the blocks import installed as their page's `npm install`
// line says, and no model API key (the offline demo model, or the block's ScriptedModel). Each
// page's blocks are written to a folder of their own in that one app. See snippets.ts for the
// fence words.
import { readFileSync } from 'node:fs';
import { cp, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, expectOk, npm, packedHubos } from '../helpers/packed-hubos.ts';
import { type RunResult, run, tempDir, writeFiles } from '../helpers/run.ts';
import { ROOT } from './markdown.ts';
import {
  packagesImported,
  RUN_KINDS,
  type RunKind,
  type Snippet,
  snippetPath,
  snippets,
} from './snippets.ts';

const env: NodeJS.ProcessEnv = { ...cleanEnv };
// No model key (the offline demo model answers), and nothing of the vitest running this file.
for (const name of Object.keys(env))
  if (/^(OPENAI_|ANTHROPIC_|HUBOS_|VITEST|NODE_ENV$|TEST$)/.test(name)) delete env[name];

const runnable = snippets().filter((s) => !s.partial && s.run !== undefined && !s.problem);

/** The version the repo has installed, so npm finds it in its cache as it found it for the repo. */
function repoVersion(pkg: string): string {
  return (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }
  ).version;
}

let app: string;

beforeAll(async () => {
  const tarball = await packedHubos();
  app = await tempDir('hubos-docs-app-');
  await writeFiles(app, { 'package.json': '{ "name": "docs-app", "private": true, "type": "module" }\n' });
  const extra = [...new Set(runnable.flatMap((s) => packagesImported(s.block.code)))].sort();
  expectOk(
    await npm(
      ['install', '--prefer-offline', tarball, ...extra.map((pkg) => `${pkg}@${repoVersion(pkg)}`)],
      app,
      env,
    ),
    'npm install of the tarball and the packages the blocks import',
  );
  expectOk(await run('npx', ['--no', 'hubos', 'init'], { cwd: app, env, timeout: 120_000 }), 'hubos init');
  const pages = new Set(runnable.map((s) => s.page));
  for (const page of pages) await cp(join(app, 'plugins'), join(app, page, 'plugins'), { recursive: true });
  const all = snippets().filter((s) => !s.partial && runnable.some((r) => r.page === s.page));
  await writeFiles(
    app,
    Object.fromEntries(all.map((s) => [relative(app, snippetPath(app, s)), s.block.code])),
  );
  for (const snippet of runnable.filter((s) => s.run === 'plugin')) {
    const [file, config] = pluginConfig(snippet);
    await writeFiles(join(app, snippet.page), { [file]: config });
  }
}, 600_000);

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
});

const bin = (name: string) => join(app, 'node_modules/.bin', name);

/** run=plugin: a config next to the block that loads the plugins it exports (factories called). */
function pluginConfig(snippet: Snippet): [string, string] {
  const module = `./${snippet.file.split('/').pop()}`;
  const names = snippet.exportName?.split(',') ?? ['default'];
  const config = `import { defineConfig } from 'hubos';
import { ${names.map((name, i) => `${name} as p${i}`).join(', ')} } from '${module}';

export default defineConfig({
  plugins: [${names.map((_, i) => `p${i}`).join(', ')}].map((p) => (typeof p === 'function' ? p() : p)),
});
`;
  return [snippet.file.replace(/\.[cm]?ts$/, '.plugin-config.ts'), config];
}

function command(kind: RunKind, file: string): [string, string[]] {
  switch (kind) {
    case 'plugin':
      return [bin('hubos'), ['plugins', '--config', file]];
    case 'validate':
      return [bin('hubos'), ['validate', '--config', file]];
    case 'node':
      return [process.execPath, [file]];
    case 'node-test':
      return [process.execPath, ['--test', '--test-reporter=tap', file]];
    case 'vitest':
      return [bin('vitest'), ['run', '--root', '.', file]];
  }
}

/** What a run must have done beyond exiting 0, by its kind. */
function checkOutput(snippet: Snippet, result: RunResult): void {
  const output = `${result.stdout}\n${result.stderr}`;
  if (snippet.run === 'validate')
    expect(result.stdout).toMatch(/✓ .* is valid: \d+ plugin\(s\), \d+ tool\(s\)/);
  if (snippet.run === 'node-test') expect(result.stdout).toMatch(/# fail 0\n/);
  if (snippet.run === 'vitest') expect(output).toMatch(/Tests\s+.*\d+ passed/);
  if (snippet.expect) expect(output).toMatch(snippet.expect);
}

describe('blocks of README.md and docs/ that run, in an app made from the package', () => {
  it('finds blocks to run, of every kind', () => {
    expect(new Set(runnable.map((s) => s.run))).toEqual(new Set(RUN_KINDS));
  });

  for (const snippet of runnable) {
    it(`${snippet.name} runs (${snippet.run})`, async () => {
      const cwd = join(app, snippet.page);
      const target = snippet.run === 'plugin' ? pluginConfig(snippet)[0] : snippet.file;
      const [file, args] = command(snippet.run!, target);
      const result = await run(file, args, { cwd, env, timeout: 120_000 });
      expectOk(result, `${snippet.name}: ${relative(app, file)} ${args.join(' ')}`);
      checkOutput(snippet, result);
    }, 150_000);
  }
});
