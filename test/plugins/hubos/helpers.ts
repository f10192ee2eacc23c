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
  const model = new ScriptedModel(script);
  const kernel = await bootKernel({
    plugins: [testTools],
    config: { agents: { helper: { description: 'A test helper', model, tools: ['*'] } } },
  });
  const hubos = new HubOS({ kernel, name: 'test', port: 0, rateLimit: false, ...options });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  return {
    kernel,
    hubos,
    model,
    url,
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
