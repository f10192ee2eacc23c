/**
 * `hubos`: the kernel and what a config, a plugin, a tool or a model provider is written against.
 * Every name here is public API; what the built-in plugins use beyond it is in core/internal.ts,
 * which is not an entry of the package.
 */
// First: on a Node.js too old for HubOS, importing hubos throws an error saying so, before anything else loads.
import './node-check.ts';

import type { SessionsConfig } from './agent/sessions.ts';
import type { AgentTemplate } from './agent/spec.ts';
import type { BusConfig } from './bus/open-bus.ts';
import type { ContextConfig } from './context/context-config.ts';
import type { EvalsConfig } from './evals/evals-config.ts';
import type { GuardrailsConfig } from './guardrails/guardrail.ts';
import type { ModelSetting } from './model/model.ts';
import type { ModelLimitsTable } from './model/model-limits.ts';
import type { RateLimits } from './model/rate-limits.ts';
import type { PermissionsConfig } from './permissions.ts';
import type { PluginOption } from './plugin.ts';
import type { RunsConfig } from './runs/run-retention.ts';
import type { StoreConfig } from './store/open-store.ts';
import type { TelemetryConfig } from './telemetry/telemetry-config.ts';
import type { PriceTable } from './usage/model-prices.ts';

export { Agent, type RunCheckpoint, type RunOptions } from './agent/agent.ts';
export type {
  AfterModelCallContext,
  AfterRunContext,
  AfterToolCallContext,
  AgentHooks,
  ModelCallContext,
  ModelResponse,
  RunContext,
  ToolCallContext,
  ToolCallDecision,
  ToolErrorContext,
} from './agent/agent-hooks.ts';
export {
  type ApprovalDecision,
  type ApprovalQuestion,
  type ApprovalRecord,
  type ApprovalRequest,
  type ApprovalStatus,
  Approvals,
  type ApprovalsOptions,
} from './agent/approvals.ts';
export {
  BUDGET_SCHEMA,
  type BudgetExceeded,
  type BudgetName,
  type RunBudget,
  runBudget,
} from './agent/budget.ts';
export { streamEvents } from './agent/event-queue.ts';
export type {
  AgentEvent,
  AgentEventType,
  ApprovalRequestEvent,
  ApprovalResultEvent,
  CompactionEvent,
  GuardrailEvent,
  ModelRetryEvent,
  RunResult,
  RunStatus,
  StopReason,
  ToolCallRecord,
  ToolLogEvent,
  ToolProgressEvent,
} from './agent/events.ts';
export type { Message, ToolCall, Usage } from './agent/messages.ts';
export type { ToolPermission } from './agent/permission-gate.ts';
export type { RunResume } from './agent/resume.ts';
export { sampleModel } from './agent/sample.ts';
export type { SessionRetention } from './agent/session-retention.ts';
export { Sessions, type SessionsConfig } from './agent/sessions.ts';
export { type AgentHandle, type AgentSpec, type AgentTemplate, DEFAULT_MAX_STEPS } from './agent/spec.ts';
export type { ToolCallRequest, ToolGuardrails } from './agent/tool-pipeline.ts';
export type { RunInteraction } from './agent/tool-runner.ts';
export type { ApprovalCursor, ApprovalQuery, ApprovalTable } from './approvals/approval-table.ts';
export type { Bus, LogEntry } from './bus/bus.ts';
export { LocalBus } from './bus/local.ts';
export type { BusConfig } from './bus/open-bus.ts';
export { CALL_SURFACES, type CallSurface } from './call-surface.ts';
export {
  type ConfigEnv,
  type ConfigExport,
  defineConfig,
} from './config.ts';
export { CONFIG_FILES, type FoundConfig, loadConfigFile } from './config-loader.ts';
export type { CompactionConfig, ContextConfig } from './context/context-config.ts';
export { type ContextSummary, summaryTable } from './context/summary-store.ts';
export type { ToolResultsConfig } from './context/tool-results-config.ts';
export {
  CORE_ERROR_CODES,
  type CoreErrorCode,
  type DeclaredCode,
  defineErrorCodes,
  type ErrorCodeSpec,
  type ErrorCodes,
  errorCodeSpec,
  errorMessage,
  HubosError,
  type HubosErrorCode,
  type HubosErrorOptions,
} from './errors.ts';
export {
  type DatasetDefinition,
  dataset,
  datasetVersion,
  defineDataset,
  loadDataset,
} from './evals/dataset.ts';
export type { EvalsConfig } from './evals/evals-config.ts';
export { DEFAULT_CONCURRENCY, type EvaluateOptions, evaluate } from './evals/evaluate.ts';
export type {
  CaseExpectations,
  CaseResult,
  Dataset,
  EvalCase,
  EvaluateResult,
  Experiment,
  ExperimentSummary,
  Score,
  Scorer,
  ScorerInput,
  ScorerSpec,
  ScorerSummary,
  TrajectoryExpectation,
} from './evals/experiment.ts';
export { type ExperimentPage, type ExperimentQuery, ExperimentStore } from './evals/experiment-store.ts';
export { ScorerRegistry } from './evals/scorer-registry.ts';
export { defineScorer } from './evals/scorers/define-scorer.ts';
export type { ScorerContext, ScorerFactory } from './evals/scorers/scorer-context.ts';
export type { BlockedTermsOptions } from './guardrails/builtins/blocked-terms.ts';
export type { ClassifierOptions } from './guardrails/builtins/classifier.ts';
export { type BuiltinGuardrails, guardrails } from './guardrails/builtins/index.ts';
export type { InjectionOptions } from './guardrails/builtins/injection.ts';
export type { JsonSchemaOptions } from './guardrails/builtins/json-schema.ts';
export type { MaxLengthOptions } from './guardrails/builtins/max-length.ts';
export type { PiiKind, PiiOptions } from './guardrails/builtins/pii.ts';
export {
  defineGuardrail,
  GUARDRAIL_STAGES,
  type Guardrail,
  type GuardrailContext,
  type GuardrailSpec,
  type GuardrailStage,
  type GuardrailsConfig,
  type GuardrailVerdict,
  type GuardrailVerdictRecord,
  pass,
  rewrite,
  trip,
} from './guardrails/guardrail.ts';
export { type GuardrailFactory, GuardrailRegistry } from './guardrails/registry.ts';
export { createHooksAccessor, type HookCatalog, type HooksAccessor, type KernelLike } from './hook-owner.ts';
export {
  createWrapHook,
  type Next,
  runWrapHook,
  type TapOnly,
  type TapOnlyHooks,
  type TappableHook,
  type WrapHook,
} from './hook-utils.ts';
export type {
  AgentLifecycleContext,
  CloseContext,
  ConfigResolvedContext,
  KernelAfterToolCallContext,
  KernelHookName,
  KernelHooks,
  KernelToolCallContext,
  KernelToolErrorContext,
  PluginsAppliedContext,
  ReadyContext,
  ResolveToolsContext,
  TapMeta,
  ToolRegisteredContext,
} from './hooks.ts';
export { Instance } from './instance.ts';
export type { JSONSchema, JSONSchemaObject, ValidateFunction } from './json-schema.ts';
export {
  createKernel,
  Kernel,
  type KernelInspection,
  type KernelOptions,
  type KernelState,
} from './kernel.ts';
export type { KernelView } from './kernel-view.ts';
export { createConsoleLogger, type Logger, silentLogger } from './logger.ts';
export {
  AGENT_MEMORY_SCHEMA,
  type AgentMemoryConfig,
  type AgentMemoryParts,
  type EmbeddingModelLike,
  MAX_WORKING_MEMORY,
  MEMORY_CONFIG_SCHEMA,
  type MemoryConfig,
  type ResolvedMemory,
  resolveMemory,
} from './memory/memory-config.ts';
export { type MemoryScope, memoryScope } from './memory/memory-scope.ts';
export { keepVectors, pruneVectors, searchVectors, type VectorHit } from './memory/memory-vectors.ts';
export { readWorkingMemory, writeWorkingMemory } from './memory/working-memory.ts';
export { fromAiSdk, isAiSdkModel } from './model/ai-sdk.ts';
export type {
  AiSdkCallOptions,
  AiSdkLanguageModel,
  AiSdkModelOptions,
  AiSdkProvider,
} from './model/ai-sdk-types.ts';
export { type FallbackModel, type FallbackOptions, fallbackModel } from './model/fallback-model.ts';
export {
  type FinishReason,
  isLanguageModel,
  isModelObject,
  type LanguageModel,
  type ModelChunk,
  type ModelObject,
  type ModelRequest,
  type ModelSetting,
  type ToolDefinition,
  toLanguageModel,
} from './model/model.ts';
export {
  BUILT_IN_MODEL_LIMITS,
  limitsOf,
  type ModelLimits,
  type ModelLimitsTable,
  modelLimitsTable,
} from './model/model-limits.ts';
export { resolveModelSetting } from './model/model-setting.ts';
export { ModelRateLimiter, type ProviderRateLimit, type RateLimits } from './model/rate-limits.ts';
export { type ModelProvider, ModelRegistry } from './model/registry.ts';
export {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  isTransientModelFailure,
  type ModelRetry,
  type RetryPolicy,
  retryAfterMs,
  retryReason,
} from './model/retry-policy.ts';
export {
  ESTIMATE_COUNTER,
  estimateTokens,
  type TokenCounter,
  type TokenFamily,
  tokenCounter,
  tokenFamily,
} from './model/tokens.ts';
export {
  AddressGuard,
  type AddressGuardOptions,
  AddressRefusedError,
  type DnsResolver,
  type PinnedAddress,
} from './net/address-guard.ts';
export { AllowList } from './net/allow-list.ts';
export { type AddressVerdict, classifyAddress } from './net/classify-address.ts';
export {
  type GuardedAgentOptions,
  type GuardedFetch,
  guardedAgent,
  guardedFetch,
} from './net/guarded-agent.ts';
export { type RedirectHop, redirectHop } from './net/redirect.ts';
export { MIN_NODE_VERSION, NODE_ENGINES } from './node-version.ts';
export {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type PermissionDecision,
  type PermissionSubject,
  type PermissionsConfig,
  type PermissionVerdict,
  type Policy,
} from './permissions.ts';
export {
  type CheckedPluginFactory,
  definePlugin,
  isPlugin,
  type Plugin,
  type PluginFactory,
  type PluginOption,
  type PluginOptionsInput,
  type PluginOptionsOf,
  type PluginOptionsSchema,
} from './plugin.ts';
export {
  ANONYMOUS,
  canSee,
  keyPrincipal,
  LOCAL,
  type Principal,
  sessionKey,
  sessionOwner,
} from './principal.ts';
export type { Prompt, PromptArgument, PromptContext, PromptMessage, PromptResult } from './prompts/prompt.ts';
export { PromptRegistry } from './prompts/registry.ts';
export type {
  RecordCursor,
  RecordEntry,
  RecordFilter,
  RecordIndexes,
  RecordPage,
  RecordQuery,
  RecordTable,
} from './records/record-table.ts';
export { recordTable } from './records/typed-record-table.ts';
export { type ResourceMatch, ResourceRegistry } from './resources/registry.ts';
export type {
  ArgumentCompleter,
  Resource,
  ResourceContext,
  ResourceInfo,
  ResourceTemplate,
} from './resources/resource.ts';
export { matchUriTemplate } from './resources/uri-template.ts';
export {
  type RecordedRunOptions,
  type RunDriver,
  RunEngine,
  type RunEngineOptions,
  type RunListener,
  type RunResumer,
  type RunStartOptions,
} from './runs/run-engine.ts';
export type { RunFollow, RunLogEntry } from './runs/run-events.ts';
export { newRunId } from './runs/run-id.ts';
export {
  DEFAULT_RUN_PAGE,
  encodeCursor,
  MAX_RUN_PAGE,
  parseRunQuery,
  type RunListParams,
} from './runs/run-list-query.ts';
export {
  isFinal,
  RUN_STATES,
  RUN_SURFACES,
  type RunRecord,
  type RunRecordOptions,
  type RunState,
  type RunSurface,
} from './runs/run-record.ts';
export type { RunDurability, RunRetention, RunsConfig } from './runs/run-retention.ts';
export type {
  JournalEntry,
  RunClaim,
  RunQuery,
  RunStep,
  RunTable,
  StepApproval,
  StepRetry,
  StepTrack,
  StoredStep,
} from './runs/run-table.ts';
export type { UsageGroupBy, UsageQuery, UsageRow } from './runs/run-usage-query.ts';
export type { StepDetail } from './runs/step-detail.ts';
export type { StepPayload } from './runs/step-payload.ts';
export { createSandbox, type Sandbox } from './sandbox/sandbox.ts';
export { enableSchemaCache } from './schema-cache.ts';
export type { ServiceName, ServiceOf } from './services.ts';
export type { SessionHit, SessionInfo, SessionSearch } from './sessions/session-table.ts';
export { isStandardSchema, type StandardJSONSchemaV1, type StandardSchemaV1 } from './standard-schema.ts';
export {
  collection,
  type JsonPart,
  type JsonShaped,
  type StoreCollection,
  storeValue,
} from './store/collection.ts';
export { MemoryStore } from './store/memory.ts';
export type { StoreConfig } from './store/open-store.ts';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite.ts';
export {
  type EntriesOptions,
  readEntries,
  type Store,
  type StoreEntry,
  type StoreValue,
  type StoreWrite,
  writeAll,
} from './store/store.ts';
export type { TelemetryConfig } from './telemetry/telemetry-config.ts';
export { ToolCalls } from './tool-calls.ts';
export {
  type AudioContent,
  contentToText,
  type EmbeddedResource,
  type ImageContent,
  isToolOutput,
  type ResourceContents,
  type ResourceLink,
  type TextContent,
  type ToolContent,
  type ToolOutput,
  toolOutput,
} from './tools/content.ts';
export { executeTool, type ToolCallEnv, type ToolResult } from './tools/execute.ts';
export {
  type ElicitRequest,
  type ElicitResult,
  LOG_LEVELS,
  type LogLevel,
  type SampleMessage,
  type SampleRequest,
  type SampleResult,
  type ToolInteraction,
} from './tools/interaction.ts';
export {
  type InputCheck,
  type OutputCheck,
  Registry,
  type RegistryChange,
  type ToolReservation,
} from './tools/registry.ts';
export {
  defineTool,
  type InputOf,
  type InteractionOptions,
  type ResultOf,
  type Tool,
  type ToolCallOptions,
  type ToolContext,
  type ToolHandler,
  type ToolSchema,
  type ToolSpec,
} from './tools/tool.ts';
export { TOOL_NAME_PATTERN } from './tools/tool-check.ts';
export { costOf, roundUsd } from './usage/cost-of.ts';
export { BUILT_IN_PRICES, type ModelPrice, type PriceTable, priceTable } from './usage/model-prices.ts';
export { priceOf } from './usage/price-of.ts';
export { type PricedStep, pricedSteps } from './usage/priced-steps.ts';
export { type RunUsageTotals, runTotals } from './usage/run-totals.ts';
export {
  parseUsageQuery,
  USAGE_BUCKETS,
  USAGE_BY,
  type UsageBucket,
  type UsageBy,
  type UsageParams,
  type UsageRequest,
} from './usage/usage-params.ts';
export { type UsageBucketTotals, type UsageReport, usageReport } from './usage/usage-report.ts';
export type { UsageTotals } from './usage/usage-totals.ts';
export { hubosVersion } from './version.ts';

// The two interfaces plugins augment are declared here, in the module `'hubos'` names, and nowhere
// else: `declare module 'hubos'` then merges into the declaration itself. Declared in another module
// and re-exported, an augmentation would merge into the re-export instead, and whether the core's
// own uses saw it would depend on which file the compiler read first.

/**
 * The app's configuration. Plugins that own more keys declare them with `configSchema` and
 * add their types with `declare module 'hubos' { interface HubosConfig { ... } }`.
 */
export interface HubosConfig {
  /** Plugin objects, falsy entries, nested arrays, and `'pkg'` / `'./file.ts'` / `['pkg', options]` specifiers. */
  plugins?: PluginOption[];
  /** Agent templates by name; each is created at boot under its name. */
  agents?: Record<string, AgentTemplate>;
  /** The model of agents that name none: a reference (`'openai:gpt-4.1-mini'`), or a model object (a `LanguageModel`, an AI SDK model). */
  model?: ModelSetting;
  /**
   * Limits per model provider (`{ openai: { concurrency: 4, tokensPerMinute: 200_000 } }`), shared
   * by every instance on the bus: a model call waits for its turn.
   */
  rateLimits?: RateLimits;
  /** Where sessions and plugin data live (default: SQLite at `.hubos/hubos.db`). */
  store?: StoreConfig;
  /** How instances of one service coordinate (default: in-process; `redis` joins several). */
  bus?: BusConfig;
  sessions?: SessionsConfig;
  /** The run engine: `retention` says how long ended runs and their steps are kept. */
  runs?: RunsConfig;
  /** The folder tools act in, relative to the config file (default `./workspace`). */
  workspace?: string;
  /**
   * Which tool calls run, wait for a human approval, or are refused: glob patterns over tool
   * permissions and names, `deny` > `ask` > `allow`; nothing matching allows. An agent template's
   * own `permissions` are checked first.
   */
  permissions?: PermissionsConfig;
  /**
   * OpenTelemetry: export every run's spans (`invoke_agent`, `chat`, `execute_tool`) to an OTLP/HTTP
   * endpoint, and whether they carry prompts, answers and tool data (`includeContent`, default off).
   */
  telemetry?: TelemetryConfig;
  /**
   * Model prices, USD per million tokens (`{ 'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 } }`),
   * over the built-in list prices: what the usage and steps routes count as cost.
   */
  pricing?: PriceTable;
  /**
   * Guardrails of every agent and tool call: `input` and `output` run before each agent's own
   * (`agents.<name>.guardrails`), `tool` on every call through `kernel.tools` (agents', MCP
   * `tools/call`, workflow tool steps).
   */
  guardrails?: GuardrailsConfig;
  /** Evaluations: `judge` is the model the judge scorer asks when it names none. */
  evals?: EvalsConfig;
  /**
   * What the model is sent of a run, for every agent (an agent's own `context` goes over it):
   * `compaction` summarizes older turns as a request nears the window; `toolResults` keeps results
   * too large for the model whole and sends their beginning and a handle.
   */
  context?: ContextConfig;
  /** Context windows and output limits by model id, over the built-in list (a local model's, say). */
  modelLimits?: ModelLimitsTable;
}

/**
 * The services plugins provide to each other, by name. A plugin types its own by augmenting it:
 * `declare module 'hubos' { interface HubosServices { billing: Billing } }`.
 * The built-in plugins each provide one named after themselves (`cosmos`, `stars`, `workflows`, `hubos`, `mcp`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface HubosServices {}
