export {
  type BashOptions,
  type BuiltinToolsOptions,
  bashTool,
  builtinToolList,
  default as builtinTools,
  type FilesystemOptions,
  filesystemTools,
  type HttpToolOptions,
  httpTools,
  registerAll,
  type SandboxOptions,
  type WebsearchOptions,
  websearchTool,
} from './builtin-tools/index.ts';
export {
  COSMOS_NAMESPACE,
  Cosmos,
  type CosmosAgentInfo,
  type CosmosConfig,
  type CosmosContext,
  type CosmosHooks,
  type CosmosOptions,
  type CosmosOverrides,
  type CosmosStats,
  type CreateOptions as CosmosCreateOptions,
  cosmosRoutes,
  default as cosmos,
  getCosmos,
  getCosmosHooks,
} from './cosmos/index.ts';
export { defaultPlugins } from './defaults.ts';
export {
  default as hubos,
  getHubOS,
  getHubOSHooks,
  HttpError,
  HubOS,
  type HubOSHooks,
  type HubOSOptions,
  type HubOSServerOptions,
  type RouteDoc,
  type RoutesContext,
  type RunRecord,
  type StarsLike,
} from './hubos/index.ts';
export { ANTHROPIC_VERSION, default as anthropic } from './models/anthropic.ts';
export { default as defaultModel, defaultModelRef } from './models/default-model.ts';
export { default as offline, OFFLINE_HELP, OfflineModel } from './models/offline.ts';
export { default as openai } from './models/openai.ts';
export {
  default as subagent,
  type ForwardedEvent,
  GENERAL_PURPOSE,
  getSubagentHooks,
  type SubagentHooks,
  type SubagentOptions,
  type SubagentType,
  SubagentTypes,
  TASK_TOOL,
  type TaskInput,
  type TaskOptions,
  type TaskSummary,
} from './subagent/index.ts';
