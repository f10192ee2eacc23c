/** Helpers for testing HubOS plugins and tools: `import { bootKernel, invokeTool } from 'hubos/testing'`. */
import {
  createKernel,
  createSandbox,
  executeTool,
  type Kernel,
  type KernelOptions,
  MemoryStore,
  Registry,
  silentLogger,
  type Tool,
  type ToolCallEnv,
  type ToolResult,
} from '../core/index.ts';

export { ScriptedModel, type ScriptedResponse, type ScriptStep } from './scripted-model.ts';

/** Creates and boots a kernel (quiet, with an in-memory store by default); close it with `kernel.close()`. */
export async function bootKernel(options: KernelOptions = {}): Promise<Kernel> {
  return createKernel({ logger: silentLogger, mode: 'test', store: new MemoryStore(), ...options }).boot();
}

/**
 * Calls one tool as the runtime would: input validated against its schema (defaults applied,
 * invalid input never reaching the handler), errors returned as results rather than thrown.
 * Outside a run `tc.progress`, `tc.log` and `tc.addUsage` do nothing, and `tc.elicit` / `tc.sample`
 * reject: pass `env.progress`, `env.log`, `env.elicit`, `env.sample` or `env.addUsage` to see what
 * the tool reports, or to answer what it asks.
 */
export async function invokeTool(
  tool: Tool,
  input: unknown,
  env: Partial<ToolCallEnv> = {},
): Promise<ToolResult> {
  const registry = new Registry();
  registry.register(tool);
  return executeTool(registry, tool.name, input, {
    ...env,
    signal: env.signal ?? new AbortController().signal,
    agentId: env.agentId ?? 'test-agent',
    sandbox: env.sandbox ?? createSandbox(process.cwd()),
    store: env.store ?? new MemoryStore(),
  });
}
