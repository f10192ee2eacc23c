/**
 * Checks the public API of each package entry against its report in api/:
 * `node scripts/api-report.ts` fails when a report differs from what the declarations export,
 * or when a public signature uses a type no entry exports; `node scripts/api-report.ts --update`
 * rewrites the reports (review their diff like code).
 *
 * It builds the declarations (`tsc -p tsconfig.build.json --emitDeclarationOnly`, into dist/), then
 * runs API Extractor on each entry with its config, api/api-extractor.<entry>.json. Items tagged
 * `@internal` are left out of the reports.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  type ExtractorResult,
} from '@microsoft/api-extractor';
import ts, { type Program } from 'typescript';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The package's entries (`exports` in package.json), named as their configs in api/ are. */
export const ENTRIES = ['core', 'plugins', 'server', 'testing'] as const;

export interface ReportOptions {
  /** Rewrite the reports instead of failing when one differs. */
  update?: boolean;
  /** Called with each message API Extractor would print; by default they are printed. */
  onMessage?: (message: ExtractorMessage) => void;
  /**
   * A declaration file of the package that is not an entry and exports only `@internal` names
   * (dist/core/internal.d.ts): an `@internal` item (the constructor of a public class) may use one
   * of them in its signature; a public item using one is still a forgotten export.
   */
  internalModule?: string;
}

export interface EntryReport {
  config: ExtractorConfig;
  result: ExtractorResult;
}

const FORGOTTEN = /^The symbol "([^"]+)" needs to be exported/;

/**
 * Runs API Extractor on each config's entry, sharing one compilation. The entries are one
 * package: a type an entry's signature uses but only another entry exports (a plugin option
 * naming `Tool` of `hubos`) is exported, so it is not a forgotten export.
 */
export function runReports(configs: readonly ExtractorConfig[], options: ReportOptions = {}): EntryReport[] {
  const [first] = configs;
  if (!first) return [];
  const internal = options.internalModule === undefined ? [] : [options.internalModule];
  const compilerState = CompilerState.create(first, {
    additionalEntryPoints: [...configs.map((config) => config.mainEntryPointFilePath), ...internal],
  });
  const exported = configs.map((config) => exportNames(compilerState, config.mainEntryPointFilePath));
  const internalNames = internal.flatMap((file) => [...exportNames(compilerState, file)]);
  return configs.map((config, index) => {
    const elsewhere = new Set(exported.filter((_, i) => i !== index).flatMap((names) => [...names]));
    const result = Extractor.invoke(config, {
      localBuild: options.update ?? false,
      compilerState,
      messageCallback: (message) => {
        if (message.messageId === 'console-preamble') {
          message.handled = true;
          return;
        }
        const name = FORGOTTEN.exec(message.text)?.[1];
        const forgotten = message.messageId === 'ae-forgotten-export' && name !== undefined;
        if (
          forgotten &&
          (elsewhere.has(name) || (internalNames.includes(name) && usedByInternalItem(message)))
        ) {
          message.logLevel = ExtractorLogLevel.None;
          message.handled = true;
          return;
        }
        if (options.onMessage) {
          options.onMessage(message);
          message.handled = true;
        }
      },
    });
    return { config, result };
  });
}

/** Whether the item whose signature the message is about (or one around it) is tagged `@internal`. */
function usedByInternalItem(message: ExtractorMessage): boolean {
  const { sourceFilePath, sourceFileLine, sourceFileColumn } = message;
  if (sourceFilePath === undefined || sourceFileLine === undefined || sourceFileColumn === undefined)
    return false;
  const file = ts.createSourceFile(
    sourceFilePath,
    readFileSync(sourceFilePath, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const position = file.getPositionOfLineAndCharacter(sourceFileLine - 1, sourceFileColumn - 1);
  const find = (node: ts.Node): ts.Node =>
    node.getChildren(file).find((child) => child.getStart(file) <= position && position < child.getEnd()) ??
    node;
  let node: ts.Node = file;
  for (let next = find(node); next !== node; next = find(node)) node = next;
  for (; node !== file; node = node.parent)
    if (ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal')) return true;
  return false;
}

function exportNames(state: CompilerState, entry: string): Set<string> {
  const program = state.program as Program;
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(entry);
  const module = file && checker.getSymbolAtLocation(file);
  return new Set(module ? checker.getExportsOfModule(module).map((symbol) => symbol.name) : []);
}

/** Emits the package's declarations into dist/ (as `npm run build` does); false when tsc reports errors. */
export function buildDeclarations(): boolean {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  try {
    execFileSync(
      process.execPath,
      [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--declarationMap'],
      { cwd: ROOT, stdio: 'inherit' },
    );
    return true;
  } catch {
    return false;
  }
}

function main(args: string[]): number {
  const update = args.includes('--update');
  if (!buildDeclarations()) {
    console.error('api report: the declarations do not compile (see above)');
    return 1;
  }
  const configs = ENTRIES.map((entry) =>
    ExtractorConfig.loadFileAndPrepare(join(ROOT, 'api', `api-extractor.${entry}.json`)),
  );
  let failed = 0;
  const internalModule = join(ROOT, 'dist/core/internal.d.ts');
  for (const { config, result } of runReports(configs, { update, internalModule })) {
    const report = config.reportConfigs[0]?.fileName ?? config.mainEntryPointFilePath;
    if (result.succeeded) {
      if (update && result.apiReportChanged) console.log(`api/${report}: updated`);
      continue;
    }
    failed++;
    console.error(
      result.apiReportChanged
        ? `api/${report}: the public API changed. Review the change and run \`npm run api:update\` to accept it.`
        : `api/${report}: ${result.errorCount} error(s), ${result.warningCount} warning(s) (see above)`,
    );
  }
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
