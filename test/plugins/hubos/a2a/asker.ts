import type { Task } from '@a2a-js/sdk';
import {
  type Bus,
  defineTool,
  LocalBus,
  type ModelRequest,
  type Plugin,
  type Store,
  toolOutput,
} from '../../../../core/index.ts';
import { HubOS, type HubOSOptions } from '../../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../../testing/index.ts';
import type { Served } from './helpers.ts';

/** Base64 of a few bytes, as a tool's image (or audio) would carry them. */
export const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64');
export const WAV = Buffer.from('RIFF-wave').toString('base64');
export const BLOB = Buffer.from('%PDF-1.7').toString('base64');

/** The question `ask_name` asks: a required name, a greeting with a default. */
export const NAME_QUESTION = {
  message: 'What is your name?',
  schema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'what to call you' },
      greeting: { type: 'string', default: 'Hello' },
    },
    required: ['name'],
  },
} as const;

/**
 * The `asker` agent's tools: `guarded` needs `a2a:guarded` (which the config asks about),
 * `ask_name` asks its question and returns what it got, `picture` answers with rich content.
 */
const askerTools: Plugin = {
  name: 'a2a-asker-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('a2a-asker-tools', (registry) => {
      registry.register(
        defineTool({
          name: 'guarded',
          description: 'Runs only once a human approved it.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          permissions: ['a2a:guarded'],
          handler: (_ctx, { input }) => ({ guarded: `ok:${input.text}` }),
        }),
      );
      registry.register(
        defineTool({
          name: 'ask_name',
          description: 'Asks the human for their name.',
          inputSchema: { type: 'object', properties: {} },
          handler: async (_ctx, tc) => {
            const answer = await tc.elicit({ message: NAME_QUESTION.message, schema: NAME_QUESTION.schema });
            return { action: answer.action, content: answer.content ?? null };
          },
        }),
      );
      registry.register(
        defineTool({
          name: 'picture',
          description: 'Draws a picture.',
          inputSchema: { type: 'object', properties: {} },
          handler: () =>
            toolOutput({
              content: [
                { type: 'text', text: 'Here it is.' },
                { type: 'image', data: PNG, mimeType: 'image/png' },
                { type: 'audio', data: WAV, mimeType: 'audio/wav' },
                {
                  type: 'resource',
                  resource: { uri: 'file:///notes/a.md', mimeType: 'text/markdown', text: '# A' },
                },
                {
                  type: 'resource',
                  resource: { uri: 'file:///docs/b.pdf', mimeType: 'application/pdf', blob: BLOB },
                },
                {
                  type: 'resource_link',
                  uri: 'https://example.com/c.csv',
                  name: 'c.csv',
                  mimeType: 'text/csv',
                },
              ],
              structuredContent: { width: 2, height: 1 },
            }),
        }),
      );
    });
  },
};

/** A LocalBus that says it is shared: instances in one process that hear each other, as on Redis. */
export function sharedLocalBus(bus: Bus = new LocalBus()): Bus {
  return new Proxy(bus, {
    get: (target, property) => {
      if (property === 'shared') return true;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * A listening HubOS serving `asker` (tools: guarded, ask_name, picture; `a2a:guarded` is asked
 * about) on a ScriptedModel. Instances given one store and one bus share their runs, tasks and approvals.
 */
export async function serveAsker(
  script: ScriptStep[],
  options: HubOSOptions = {},
  kernelOptions: { store?: Store; bus?: Bus } = {},
): Promise<Served> {
  const model = new ScriptedModel(script);
  const kernel = await bootKernel({
    plugins: [askerTools],
    ...kernelOptions,
    config: {
      permissions: { ask: ['a2a:guarded'] },
      agents: {
        asker: { description: 'Asks before it acts.', model, tools: ['guarded', 'ask_name', 'picture'] },
      },
    },
  });
  const hubos = new HubOS({ kernel, name: 'a2a-asker', port: 0, rateLimit: false, ...options });
  hubos.registerAgent('asker', kernel.agent('asker'));
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

/** A model step that says what the tool results of the run told it. */
export const sayToolResult: ScriptStep = (request: ModelRequest) => {
  const results = request.messages.filter((message) => message.role === 'tool');
  return `told: ${results.map((message) => message.content).join(' | ')}`;
};

/** The ids a message needs to answer on `task`. */
export const answerTo = (task: Task) => ({ taskId: task.id, contextId: task.contextId });
