/**
 * What the built-in plugins and the `hubos` command use of the core beyond its public API: helpers
 * that may change in any release. It is not one of the package's entries (package.json `exports`),
 * so a user's code cannot import it; the plugin-boundary lint rule lets the built-ins import it
 * next to core/index.ts. Every name here is tagged `@internal` where it is declared.
 */
export { abortable } from './abort.ts';
export type { AgentDeps } from './agent/agent.ts';
export { elicitInRun } from './agent/elicit.ts';
export { addUsage, emptyUsage } from './agent/messages.ts';
export type { GateDeps } from './agent/permission-gate.ts';
export { pruneSessions } from './agent/session-retention.ts';
export type { RunToolCall, ToolPipelineDeps } from './agent/tool-pipeline.ts';
export { type SelectToolsOptions, selectTools } from './agent/tool-select.ts';
export { hasModuleSyntax } from './app-module-format.ts';
export { pruneApprovals } from './approvals/approval-retention.ts';
export { closestName, didYouMean } from './closest-name.ts';
export { resolveConfigExport } from './config.ts';
export { eraseKeptResults, pruneKeptResults } from './context/kept-results.ts';
export { eraseSummariesOf, pruneSummaries } from './context/summary-store.ts';
export { matchesAnyGlob } from './glob.ts';
export { createAjv, describeErrors, type ProblemWords, SchemaCompilers } from './json-schema.ts';
export { eraseMemoryOf } from './memory/erase-memory.ts';
export { parseModelRef } from './model/model.ts';
export { sleepUnlessAborted } from './model/retry-policy.ts';
export { createPolicy, describeVerdict } from './permissions.ts';
export { isRecordText } from './records/record-checks.ts';
export { type BesideRuns, tendBesideRuns } from './runs/beside-runs.ts';
export { openApprovalTable, openRunTable, openSessionTable } from './runs/open-run-table.ts';
export { pacedBatches } from './runs/paced-batches.ts';
export { eraseRunsOf, PRUNE_BATCH, pruneRuns } from './runs/run-retention.ts';
export { checkElicitRequest } from './tools/interaction.ts';
export { hubosPackageRoot } from './version.ts';
