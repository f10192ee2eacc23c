/**
 * `hubos`: the kernel and what a config, a plugin, a tool or a model provider is written against.
 *
 * Names tagged `@internal` are exported for the built-in plugins (which import the core only from
 * here) and are not part of the public API: they may change in any release.
 */
// First: on a Node.js too old for HubOS, importing hubos throws an error saying so, before anything else loads.
import './node-check.ts';

export { abortable } from './abort.ts';
export { Agent, type AgentDeps, type RunOptions } from './agent/agent.ts';
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
export { elicitInRun } from './agent/elicit.ts';
export { streamEvents } from './agent/event-queue.ts';
export type {
  AgentEvent,
  AgentEventType,
  ApprovalRequestEvent,
  ApprovalResultEvent,
  RunResult,
  RunStatus,
  StopReason,
  ToolCallRecord,
  ToolLogEvent,
  ToolProgressEvent,
} from './agent/events.ts';
export { addUsage, emptyUsage, type Message, type ToolCall, type Usage } from './agent/messages.ts';
export { type GateDeps, gateToolCall } from './agent/permission-gate.ts';
export { sampleModel } from './agent/sample.ts';
export { Sessions, type SessionsConfig } from './agent/sessions.ts';
export { type AgentHandle, type AgentSpec, type AgentTemplate, DEFAULT_MAX_STEPS } from './agent/spec.ts';
export type { RunInteraction } from './agent/tool-runner.ts';
export { type SelectToolsOptions, selectTools } from './agent/tool-select.ts';
export { hasModuleSyntax } from './app-module-format.ts';
export type { Bus, Job, LogEntry, WorkOptions } from './bus/bus.ts';
export { LocalBus } from './bus/local.ts';
export type { BusConfig } from './bus/open-bus.ts';
export { closestName } from './closest-name.ts';
export {
  type ConfigEnv,
  type ConfigExport,
  defineConfig,
  type HubosConfig,
  resolveConfigExport,
} from './config.ts';
export { CONFIG_FILES, type FoundConfig, loadConfigFile } from './config-loader.ts';
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
export { matchesAnyGlob } from './glob.ts';
export { createHooksAccessor, type HookCatalog, type KernelLike } from './hook-owner.ts';
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
  KernelHookName,
  KernelHooks,
  PluginsAppliedContext,
  ReadyContext,
  ResolveToolsContext,
  TapMeta,
  ToolRegisteredContext,
} from './hooks.ts';
export { Instance } from './instance.ts';
export {
  createAjv,
  describeErrors,
  type JSONSchema,
  type JSONSchemaObject,
  type ProblemWords,
  SchemaCompilers,
  type ValidateFunction,
} from './json-schema.ts';
export {
  createKernel,
  Kernel,
  type KernelInspection,
  type KernelOptions,
  type KernelState,
} from './kernel.ts';
export type { KernelView } from './kernel-view.ts';
export { createConsoleLogger, type Logger, silentLogger } from './logger.ts';
export { fromAiSdk, isAiSdkModel } from './model/ai-sdk.ts';
export type {
  AiSdkCallOptions,
  AiSdkLanguageModel,
  AiSdkModelOptions,
  AiSdkProvider,
} from './model/ai-sdk-types.ts';
export {
  type FinishReason,
  isLanguageModel,
  isModelObject,
  type LanguageModel,
  type ModelChunk,
  type ModelObject,
  type ModelRequest,
  parseModelRef,
  type ToolDefinition,
  toLanguageModel,
} from './model/model.ts';
export { type ModelProvider, ModelRegistry } from './model/registry.ts';
export { MIN_NODE_VERSION, NODE_ENGINES } from './node-version.ts';
export {
  createPolicy,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  describeVerdict,
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
export type { Prompt, PromptArgument, PromptContext, PromptMessage, PromptResult } from './prompts/prompt.ts';
export { PromptRegistry } from './prompts/registry.ts';
export { type ResourceMatch, ResourceRegistry } from './resources/registry.ts';
export type {
  ArgumentCompleter,
  Resource,
  ResourceContext,
  ResourceInfo,
  ResourceTemplate,
} from './resources/resource.ts';
export { matchUriTemplate } from './resources/uri-template.ts';
export { createSandbox, type Sandbox } from './sandbox/sandbox.ts';
export { enableSchemaCache } from './schema-cache.ts';
export type { HubosServices, ServiceName, ServiceOf } from './services.ts';
export { isStandardSchema, type StandardJSONSchemaV1, type StandardSchemaV1 } from './standard-schema.ts';
export { MemoryStore } from './store/memory.ts';
export type { StoreConfig } from './store/open-store.ts';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite.ts';
export { type Store, type StoreValue, type StoreWrite, writeAll } from './store/store.ts';
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
  checkElicitRequest,
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
export { hubosPackageRoot, hubosVersion } from './version.ts';
