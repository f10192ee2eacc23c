import { defineTool, type Kernel, type Plugin } from '../../../core/index.ts';
import { HubOS, type HubOSOptions } from '../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';

/** A plugin with an `echo` tool and a `wait` tool that only ends when cancelled. */
export const testTools: Plugin = {
  name: 'test-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('test-tools', (registry) => {
      registry.register(
        defineTool({
          name: 'echo',
          description: 'Echoes its text.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          handler: (_ctx, { input }) => ({ echoed: input.text }),
        }),
      );
      registry.register(
        defineTool({
          name: 'wait',
          description: 'Waits until cancelled.',
          inputSchema: { type: 'object', properties: {} },
          handler: ({ signal }) =>
            new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
        }),
      );
    });
  },
};

export interface Served {
  kernel: Kernel;
  hubos: HubOS;
  model: ScriptedModel;
  url: string;
  close(): Promise<void>;
}

/** A kernel with one agent `helper` on a ScriptedModel, served by a listening HubOS. */
export async function serveHelper(script: ScriptStep[], options: HubOSOptions = {}): Promise<Served> {
  const built = await buildHelper(script, options);
  const url = await built.hubos.serve();
  return { ...built, url };
}

/** What `buildHelper` gives: the server's app built, asked with `app.request()`, no socket. */
export type Built = Omit<Served, 'url'>;

/**
 * A kernel with one agent `helper` on a ScriptedModel, and a HubOS whose app is built but does not
 * listen: for route logic, asked with `hubos.app.request()`. It takes no queued runs (no workers).
 */
export async function buildHelper(script: ScriptStep[], options: HubOSOptions = {}): Promise<Built> {
  const model = new ScriptedModel(script);
  const kernel = await bootKernel({
    plugins: [testTools],
    config: { agents: { helper: { description: 'A test helper', model, tools: ['*'] } } },
  });
  const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false, ...options });
  hubos.registerAgent('helper', kernel.agent('helper'));
  await hubos.init();
  return {
    kernel,
    hubos,
    model,
    close: async () => {
      await hubos.close();
      await kernel.close();
    },
  };
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Parses an SSE body into `{ event, data }` records. */
export function parseSSE(text: string): { event: string; data: unknown }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}

/** An answer from `app.request()`: its status, headers, and body parsed as JSON (undefined if empty). */
export async function ask(
  hubos: HubOS,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
): Promise<{ status: number; headers: Headers; body: any }> {
  const { body, headers = {} } = options;
  const response = await hubos.app.request(path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
