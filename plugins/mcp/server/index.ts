export type { AskAgentRunner } from './ask-agent.ts';
export { ASK_AGENT_SCHEMA, askToolName } from './ask-agent.ts';
export { registerBuiltinResources } from './builtin-resources.ts';
export { MCP_AGENT_ID } from './call-tool.ts';
export { MCP_SERVE_ERROR_CODES } from './errors.ts';
export { tapMcpEndpoint } from './http-endpoint.ts';
export { createMcpServer, type McpServerOptions } from './mcp-server.ts';
export { type ServedTool, servedTools } from './served-tools.ts';
