/**
 * The API report check (`npm run api:check`, scripts/api-report.ts) with the repo's API Extractor
 * settings (api/api-extractor.base.json), run on a small package of declarations in a temp folder.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExtractorConfig, type ExtractorMessage, type IConfigFile } from '@microsoft/api-extractor';
import { describe, expect, it } from 'vitest';
import { runReports } from '../../scripts/api-report.ts';
import { ROOT, tempDir, writeFiles } from '../helpers/run.ts';

const base = ExtractorConfig.loadFile(join(ROOT, 'api/api-extractor.base.json'));

/** The repo's settings for one entry (`dist/<entry>.d.ts`) of a package in `dir`. */
function entryConfig(dir: string, entry: string): ExtractorConfig {
  const configObject: IConfigFile = {
    ...base,
    projectFolder: dir,
    mainEntryPointFilePath: join(dir, 'dist', `${entry}.d.ts`),
    compiler: {
      overrideTsconfig: {
        compilerOptions: { target: 'ES2023', lib: ['ES2023'], module: 'NodeNext', types: [], strict: true },
        files: [`dist/${entry}.d.ts`],
      },
    },
    apiReport: {
      ...base.apiReport,
      enabled: true,
      reportFileName: `fixture-${entry}`,
      reportFolder: join(dir, 'api'),
      reportTempFolder: join(dir, 'temp'),
    },
  };
  return ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: join(dir, 'api-extractor.json'),
    packageJsonFullPath: join(dir, 'package.json'),
  });
}

async function fixture(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('hubos-api-report-');
  await writeFiles(dir, { 'package.json': '{ "name": "fixture", "version": "1.0.0" }\n', ...files });
  mkdirSync(join(dir, 'api'));
  return dir;
}

function check(configs: ExtractorConfig[], update = false) {
  const messages: ExtractorMessage[] = [];
  const reports = runReports(configs, { update, onMessage: (message) => messages.push(message) });
  return { results: reports.map((report) => report.result), messages };
}

const GREET = 'export declare function greet(name: string): string;\n';

describe('the API report check', () => {
  it('passes while the declarations match the report, and fails when an export is added without updating it', async () => {
    const dir = await fixture({ 'dist/index.d.ts': GREET });
    const config = entryConfig(dir, 'index');
    const report = join(dir, 'api/fixture-index.public.api.md');

    expect(check([config], true).results[0]?.succeeded).toBe(true);
    expect(readFileSync(report, 'utf8')).toContain('export function greet(name: string): string;');
    const same = check([config]).results[0]!;
    expect(same.succeeded).toBe(true);
    expect(same.apiReportChanged).toBe(false);

    await writeFiles(dir, { 'dist/index.d.ts': `${GREET}export declare const extra: number;\n` });
    const changed = check([config]).results[0]!;
    expect(changed.succeeded).toBe(false);
    expect(changed.apiReportChanged).toBe(true);
    expect(readFileSync(report, 'utf8')).not.toContain('export const extra');
    expect(existsSync(join(dir, 'temp/fixture-index.public.api.md'))).toBe(true);

    expect(check([config], true).results[0]?.succeeded).toBe(true);
    expect(readFileSync(report, 'utf8')).toContain('export const extra: number;');
  });

  it('fails when a public signature uses a type the package does not export (ae-forgotten-export)', async () => {
    const dir = await fixture({
      'dist/index.d.ts': `interface Options {\n  loud?: boolean;\n}\nexport declare function greet(name: string, options?: Options): string;\nexport {};\n`,
    });
    const { results, messages } = check([entryConfig(dir, 'index')], true);
    expect(results[0]?.succeeded).toBe(false);
    expect(results[0]?.errorCount).toBe(1);
    expect(messages.filter((m) => m.messageId === 'ae-forgotten-export').map((m) => m.text)).toEqual([
      'The symbol "Options" needs to be exported by the entry point index.d.ts',
    ]);
  });

  it('takes a type another entry of the package exports as exported, and leaves @internal items out', async () => {
    const dir = await fixture({
      'dist/core.d.ts': `export interface Options {\n  loud?: boolean;\n}\n/** @internal */\nexport declare function secret(): void;\n`,
      'dist/extra.d.ts': `import type { Options } from './core.js';\nexport declare function greet(name: string, options?: Options): string;\n`,
    });
    const { results, messages } = check([entryConfig(dir, 'core'), entryConfig(dir, 'extra')], true);
    const problems = messages.filter(
      (m) => m.category !== 'console' && ['error', 'warning'].includes(m.logLevel),
    );
    expect(problems).toEqual([]);
    expect(results.map((result) => result.succeeded)).toEqual([true, true]);
    const core = readFileSync(join(dir, 'api/fixture-core.public.api.md'), 'utf8');
    expect(core).toContain('export interface Options');
    expect(core).not.toContain('secret');
    expect(readFileSync(join(dir, 'api/fixture-extra.public.api.md'), 'utf8')).toContain(
      'export function greet(name: string, options?: Options): string;',
    );
  });

  it("takes a name of the package's internal module as exported for an @internal member, never for a public signature", async () => {
    const internal = `/** @internal */\nexport interface Deps {\n  port: number;\n}\n`;
    const withCtor = `import type { Deps } from './internal.js';\nexport declare class Server {\n  /** @internal */\n  constructor(deps: Deps);\n}\n`;
    const dir = await fixture({ 'dist/internal.d.ts': internal, 'dist/index.d.ts': withCtor });
    const config = entryConfig(dir, 'index');
    const internalModule = join(dir, 'dist/internal.d.ts');
    const run = (update: boolean) => {
      const messages: ExtractorMessage[] = [];
      const [report] = runReports([config], { update, internalModule, onMessage: (m) => messages.push(m) });
      const problems = messages.filter(
        (m) => m.category !== 'console' && ['error', 'warning'].includes(m.logLevel),
      );
      return { result: report!.result, problems };
    };
    const ok = run(true);
    expect(ok.problems).toEqual([]);
    expect(ok.result.succeeded).toBe(true);
    expect(readFileSync(join(dir, 'api/fixture-index.public.api.md'), 'utf8')).not.toContain('Deps');

    await writeFiles(dir, {
      'dist/index.d.ts': `import type { Deps } from './internal.js';\nexport declare function listen(deps: Deps): void;\n`,
    });
    const leaked = run(true);
    expect(leaked.result.succeeded).toBe(false);
    expect(leaked.problems.map((m) => m.text)).toEqual([
      'The symbol "Deps" needs to be exported by the entry point index.d.ts',
    ]);
  });
});
