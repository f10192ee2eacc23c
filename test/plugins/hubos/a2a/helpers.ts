import { randomUUID } from 'node:crypto';
import { type Message, Role, type SendMessageRequest } from '@a2a-js/sdk';
import { type CallInterceptor, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { defineTool, type Kernel, type Plugin, type Store } from '../../../../core/index.ts';
import { HubOS, type HubOSOptions } from '../../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../../testing/index.ts';

/** `lookup` answers at once; `slow` only ends when its run is cancelled. */
const tools: Plugin = {
  name: 'a2a-test-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('a2a-test-tools', (registry) => {
      registry.register(
        defineTool({
          name: 'lookup',
          description: 'Looks a word up.',
          inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
          permissions: ['net:search'],
          handler: (_ctx, { input }) => ({ meaning: `${input.word} means hello` }),
        }),
      );
      registry.register(
        defineTool({
          name: 'slow',
          description: 'Takes forever.',
          inputSchema: { type: 'object', properties: {} },
          handler: ({ signal }) =>
            new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
        }),
      );
    });
  },
};

export interface Served {
  kernel: Kernel;
  hubos: HubOS;
  /** The model of `helper`. */
  model: ScriptedModel;
  url: string;
  close(): Promise<void>;
}

/**
 * A listening HubOS serving `helper` (tools: lookup, slow) and `quiet` (no tools, no description),
 * each on its own ScriptedModel.
 */
export async function serve(
  script: ScriptStep[],
  options: HubOSOptions = {},
  kernelOptions: { store?: Store } = {},
): Promise<Served> {
  const model = new ScriptedModel(script);
  const kernel = await bootKernel({
    plugins: [tools],
    ...kernelOptions,
    config: {
      agents: {
        helper: { description: 'Answers questions about words.', model, tools: ['lookup', 'slow'] },
        quiet: { model: new ScriptedModel(['Shh.']) },
      },
    },
  });
  const hubos = new HubOS({
    kernel,
    name: 'a2a-test',
    version: '1.2.3',
    port: 0,
    rateLimit: false,
    ...options,
  });
  hubos.registerAgent('helper', kernel.agent('helper'));
  hubos.registerAgent('quiet', kernel.agent('quiet'));
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

/** A v1.0 user message with one text part, as `SendMessageRequest` wants it. */
export function userText(
  text: string,
  ids: { contextId?: string; taskId?: string } = {},
): SendMessageRequest {
  const message: Message = {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

/** A v1.0 user message with one data part (an answer's decision or fields). */
export function userData(
  data: Record<string, unknown>,
  ids: { contextId?: string; taskId?: string } = {},
): SendMessageRequest {
  const request = userText('', ids);
  request.message!.parts = [
    {
      content: { $case: 'data', value: data },
      metadata: undefined,
      filename: '',
      mediaType: 'application/json',
    },
  ];
  return request;
}

/** The values of the parts that carry data. */
export function dataOf(parts: { content?: { $case: string; value?: unknown } }[] | undefined): unknown[] {
  return (parts ?? []).flatMap((part) => (part.content?.$case === 'data' ? [part.content.value] : []));
}

/** The text of the parts that carry text. */
export function textOf(parts: { content?: { $case: string; value?: unknown } }[] | undefined): string {
  return (parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? String(part.content.value) : ''))
    .join('');
}

export function rpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Parses an SSE body into its events' JSON data. */
export function sseData(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) =>
      JSON.parse(
        block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n'),
      ),
    );
}

/** Polls until `check` passes (for state another request changes). */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  ms = 3000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Adds `Authorization: Bearer <key>` to every call, as a client application would. */
function bearer(key: string): CallInterceptor {
  return {
    before: async (args) => {
      args.options = {
        ...args.options,
        serviceParameters: { ...args.options?.serviceParameters, Authorization: `Bearer ${key}` },
      };
    },
    after: async () => undefined,
  };
}

/** The official A2A client for the agent card at `cardBase`, sending `key` with every call. */
export function keyedClient(cardBase: string, key: string) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    clientConfig: { interceptors: [bearer(key)] },
  });
  return new ClientFactory(options).createFromUrl(cardBase);
}
