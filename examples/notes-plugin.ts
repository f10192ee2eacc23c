import { defineErrorCodes, definePlugin, defineTool, type Store, toolOutput } from 'hubos';
import { describeRoute, getHubOSHooks, Hono, type HubOSEnv } from 'hubos/server';
import { z } from 'zod';

/** The plugin's options, checked when the app loads: a typo or a wrong type fails naming the option. */
const NotesOptions = z.strictObject({
  /** How many notes the store keeps before refusing new ones. */
  maxNotes: z.number().int().min(1).default(50),
});

/** The notes, as the `notes` service other plugins can use (`kernel.service('notes')`). */
export interface Notebook {
  titles(): Promise<string[]>;
  read(title: string): Promise<string>;
}

declare module 'hubos' {
  interface HubosServices {
    notes: Notebook;
  }
}

// Declared once with their HTTP statuses: tools and routes raise them, HubOS answers them.
const errors = defineErrorCodes('notes', { NOTE_NOT_FOUND: 404, NOTEBOOK_FULL: 409 });

function notebook(store: () => Store): Notebook {
  return {
    titles: () => store().list('notes'),
    async read(title) {
      const text = await store().get('notes', title);
      if (typeof text !== 'string') throw errors.create('NOTE_NOT_FOUND', `no note titled "${title}"`);
      return text;
    },
  };
}

const noteUri = (title: string) => `notes://${encodeURIComponent(title)}`;

/**
 * A local plugin: notes kept in the kernel's store, so they last as long as the store does.
 * Shows defineTool's typed input (from JSON Schema, and from Zod in notes_find), a plugin factory
 * whose options are checked against a Zod schema, a service, its own error codes,
 * documented routes mounted on the HubOS server with the `hubos/server` kit, structured and rich
 * tool results, a tool that asks its human a question (`tc.elicit`), and the notes as MCP
 * resources (`notes://{title}`) and a prompt.
 */
export const notes = definePlugin({ name: 'notes', optionsSchema: NotesOptions }, (options) => {
  const { maxNotes } = options;
  return {
    name: 'notes',
    version: '1.0.0',
    provides: ['notes'],
    apply(kernel) {
      const book = notebook(() => kernel.store);
      kernel.provide('notes', book);
      kernel.hooks.registerTools.tap('notes', (registry) => {
        registry.registerBatch([
          defineTool({
            name: 'notes_add',
            description: 'Saves a short note under a title. Use it to remember something for later.',
            inputSchema: {
              type: 'object',
              properties: {
                title: { type: 'string', minLength: 1, maxLength: 100 },
                text: { type: 'string', maxLength: 10_000 },
              },
              required: ['title', 'text'],
              additionalProperties: false,
            },
            permissions: ['notes:write'],
            handler: async (_ctx, { input, store }) => {
              const existing = await store.list('notes');
              if (existing.length >= maxNotes && !existing.includes(input.title)) {
                throw errors.create(
                  'NOTEBOOK_FULL',
                  `the notebook is full (${maxNotes} notes): delete one first`,
                );
              }
              await store.set('notes', input.title, input.text);
              // MCP clients subscribed to the note hear that it changed.
              kernel.resources.updated(noteUri(input.title));
              return { saved: input.title };
            },
          }),
          defineTool({
            name: 'notes_list',
            description: 'Lists the titles of saved notes.',
            inputSchema: { type: 'object', properties: {}, additionalProperties: false },
            // Structured output: checked on return, and shown to MCP clients.
            outputSchema: {
              type: 'object',
              properties: { titles: { type: 'array', items: { type: 'string' } } },
              required: ['titles'],
            },
            permissions: ['notes:read'],
            handler: async (_ctx, { store }) => ({ titles: await store.list('notes') }),
          }),
          // Declared with Zod: the handler's input is typed from it, the model and MCP clients see the
          // JSON Schema derived from it, and zod's own checks and defaults apply before the handler runs.
          defineTool({
            name: 'notes_find',
            description: 'Finds the notes whose title or text contains some words. Use it to recall a note.',
            inputSchema: z.strictObject({
              query: z.string().trim().min(1).describe('Words to look for, in any case'),
              limit: z.number().int().min(1).max(50).default(10).describe('At most this many titles'),
            }),
            outputSchema: z.object({ titles: z.array(z.string()) }),
            permissions: ['notes:read'],
            handler: async (_ctx, { input, store }) => {
              const query = input.query.toLowerCase();
              const found: string[] = [];
              for (const title of await store.list('notes')) {
                const text = await store.get<string>('notes', title);
                if (`${title}\n${text ?? ''}`.toLowerCase().includes(query)) found.push(title);
                if (found.length === input.limit) break;
              }
              return { titles: found };
            },
          }),
          defineTool({
            name: 'notes_show',
            description: 'Shows one note, as a document the caller can keep.',
            inputSchema: {
              type: 'object',
              properties: { title: { type: 'string', minLength: 1 } },
              required: ['title'],
              additionalProperties: false,
            },
            permissions: ['notes:read'],
            // A rich result: the note as an embedded resource, beside a line of text.
            handler: async (_ctx, { input }) =>
              toolOutput({
                content: [
                  { type: 'text', text: `The note "${input.title}":` },
                  {
                    type: 'resource',
                    resource: {
                      uri: noteUri(input.title),
                      mimeType: 'text/plain',
                      text: await book.read(input.title),
                    },
                  },
                ],
              }),
          }),
          defineTool({
            name: 'notes_forget',
            description: 'Deletes a note, after asking the user to confirm.',
            inputSchema: {
              type: 'object',
              properties: { title: { type: 'string', minLength: 1 } },
              required: ['title'],
              additionalProperties: false,
            },
            permissions: ['notes:write'],
            handler: async (_ctx, { input, store, elicit }) => {
              await book.read(input.title);
              // The human answers on the page, over REST, AG-UI, A2A, the CLI or their MCP client.
              const answer = await elicit({
                message: `Delete the note "${input.title}"?`,
                schema: {
                  type: 'object',
                  properties: {
                    confirm: { type: 'boolean', title: 'Delete it', default: false },
                    why: { type: 'string', title: 'Why (optional)' },
                  },
                },
              });
              if (answer.action !== 'accept' || answer.content?.confirm !== true)
                return { deleted: false, why: answer.reason ?? 'the user kept it' };
              await store.delete('notes', input.title);
              return { deleted: true };
            },
          }),
        ]);
      });
      // Each note is a resource (notes://<title>), listed and completed by title.
      kernel.resources.registerTemplate({
        uriTemplate: 'notes://{title}',
        name: 'note',
        description: 'A saved note',
        mimeType: 'text/plain',
        permissions: ['notes:read'],
        list: async () =>
          (await book.titles()).map((title) => ({
            uri: noteUri(title),
            name: title,
            mimeType: 'text/plain',
          })),
        read: async (uri, { title = '' }) => [{ uri, mimeType: 'text/plain', text: await book.read(title) }],
        complete: {
          title: async (typed) => (await book.titles()).filter((title) => title.startsWith(typed)),
        },
      });
      kernel.prompts.register({
        name: 'notes_review',
        description: 'Asks for a review of the saved notes on a topic.',
        arguments: [{ name: 'topic', description: 'What the review should focus on', required: true }],
        get: async ({ topic = '' }) => ({
          messages: [
            {
              role: 'user',
              content: {
                type: 'text',
                text: `Review my notes about ${topic}. Titles: ${(await book.titles()).join(', ') || '(none)'}.`,
              },
            },
          ],
        }),
      });
      // GET /api/notes and /api/notes/:title, behind the server's API keys and in /api/openapi.json.
      getHubOSHooks(kernel).routes.tap('notes', ({ api, mount }) => {
        const routes = new Hono<HubOSEnv>()
          .get('/', describeRoute({ summary: 'The titles of the saved notes', tags: ['notes'] }), async (c) =>
            c.json({ titles: await book.titles() }),
          )
          .get(
            '/:title',
            describeRoute({ summary: 'One note', tags: ['notes'], responses: { 404: 'No such note' } }),
            async (c) => c.json({ title: c.req.param('title'), text: await book.read(c.req.param('title')) }),
          );
        mount(`${api}/notes`, routes);
      });
    },
  };
});
