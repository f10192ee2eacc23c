import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, type HubosConfig, type Kernel, type Plugin } from '../../../core/index.ts';
import builtinTools from '../../../plugins/builtin-tools/index.ts';
import hubos from '../../../plugins/hubos/index.ts';
import type { HubOSServerOptions } from '../../../plugins/hubos/options.ts';
import mcp from '../../../plugins/mcp/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';

/** A gate a test opens by hand: what a tool waits on so the test controls when it ends. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** What the test tools let a test observe. */
export interface Probe {
  /** Opened when a `wait` call started; `cancelled` resolves with the reason when it is cancelled. */
  waiting: ReturnType<typeof gate>;
  cancelled: Promise<unknown>;
  /** Opened by a test to let a running `hold` call finish; `held` resolves once one started. */
  release: ReturnType<typeof gate>;
  held: ReturnType<typeof gate>;
}

/** `echo` (object output), `wait` (until cancelled), `hold` (until released), `report` (progress). */
export function testTools(probe: Probe, onCancel: (reason: unknown) => void): Plugin {
  return {
    name: 'mcp-test-tools',
    apply(kernel) {
      kernel.hooks.registerTools.tap('mcp-test-tools', (registry) => {
        registry.registerBatch([
          defineTool({
            name: 'echo',
            description: 'Echoes its text.',
            inputSchema: {
              type: 'object',
              properties: { text: { type: 'string' }, times: { type: 'integer', default: 1 } },
              required: ['text'],
              additionalProperties: false,
            },
            handler: (_ctx, { input, agentId }) => ({ echoed: input.text.repeat(input.times), agentId }),
          }),
          defineTool({
            name: 'wait',
            description: 'Waits until cancelled.',
            inputSchema: { type: 'object', properties: {} },
            handler: ({ signal }) =>
              new Promise((_, reject) => {
                signal.addEventListener('abort', () => {
                  onCancel(signal.reason);
                  reject(new Error('stopped'));
                });
                probe.waiting.open();
              }),
          }),
          defineTool({
            name: 'hold',
            description: 'Runs until the test releases it.',
            inputSchema: { type: 'object', properties: {} },
            handler: async () => {
              probe.held.open();
              await probe.release.opened;
              return 'released';
            },
          }),
          defineTool({
            name: 'report',
            description: 'Reports progress twice, then answers.',
            inputSchema: { type: 'object', properties: {} },
            handler: (_ctx, { progress }) => {
              progress?.('half way');
              progress?.({ done: 2 });
              return 'reported';
            },
          }),
          defineTool({
            name: 'hidden',
            description: 'Not in serve.tools.',
            inputSchema: { type: 'object', properties: {} },
            handler: () => 'should not run',
          }),
        ]);
      });
    },
  };
}

export interface Served {
  kernel: Kernel;
  url: string;
  workspace: string;
  model: ScriptedModel;
  probe: Probe;
  close(): Promise<void>;
}

/**
 * A kernel with the built-in tools (in a temp workspace), the test tools, agents `helper` (on a
 * ScriptedModel) and `other`, and the hubos + mcp plugins; its HubOS listening on a free port.
 * Writing asks, deleting is denied.
 */
export async function serveMcp(
  options: { script?: ScriptStep[]; mcp?: HubosConfig['mcp']; server?: HubOSServerOptions } = {},
): Promise<Served> {
  const workspace = await mkdtemp(join(tmpdir(), 'hubos-mcp-serve-'));
  const model = new ScriptedModel(options.script ?? []);
  let cancelled!: (reason: unknown) => void;
  const probe: Probe = {
    cancelled: new Promise((resolve) => {
      cancelled = resolve;
    }),
    waiting: gate(),
    release: gate(),
    held: gate(),
  };
  const kernel = await bootKernel({
    plugins: [
      builtinTools(),
      testTools(probe, cancelled),
      mcp(),
      hubos({ port: 0, rateLimit: false, ...options.server }),
    ],
    config: {
      workspace,
      permissions: { ask: ['fs:write'], deny: ['fs:delete'] },
      agents: {
        helper: { description: 'Knows the answers.', model, tools: ['filesystem_*'] },
        other: { description: 'Another agent.', model: new ScriptedModel([]) },
      },
      mcp: options.mcp ?? {
        serve: { tools: ['filesystem_*', 'echo', 'wait', 'hold', 'report'], agents: ['helper'] },
      },
    },
  });
  const url = await kernel.service('hubos').serve();
  return {
    kernel,
    url,
    workspace,
    model,
    probe,
    close: async () => {
      await kernel.close();
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

/** An MCP client connected to `<url>/mcp`; with `answer`, it handles elicitation by calling it. */
export async function connect(
  url: string,
  options: {
    headers?: Record<string, string>;
    answer?: (message: string) => ElicitResult | Promise<ElicitResult>;
    path?: string;
  } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: options.answer ? { elicitation: {} } : {} },
  );
  const answer = options.answer;
  if (answer) client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params.message));
  const transport = new StreamableHTTPClientTransport(new URL(`${url}${options.path ?? '/mcp'}`), {
    requestInit: { headers: options.headers ?? {} },
  });
  await client.connect(transport);
  return { client, transport };
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content[0]?.text ?? '';
}
