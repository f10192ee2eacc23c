import { defineErrorCodes, definePlugin, defineTool, type Store } from 'hubos';
import { describeRoute, getHubOSHooks, Hono, type HubOSEnv } from 'hubos/server';

export interface NotesOptions {
  /** How many notes the store keeps before refusing new ones. */
  maxNotes?: number;
}

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

/**
 * A local plugin: notes kept in the kernel's store, so they last as long as the store does.
 * Shows defineTool's typed input, a plugin factory with options, a service, its own error codes,
 * and documented routes mounted on the HubOS server with the `hubos/server` kit.
 */
export const notes = definePlugin((options: NotesOptions = {}) => {
  const maxNotes = options.maxNotes ?? 50;
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
              return { saved: input.title };
            },
          }),
          defineTool({
            name: 'notes_list',
            description: 'Lists the titles of saved notes.',
            inputSchema: { type: 'object', properties: {}, additionalProperties: false },
            permissions: ['notes:read'],
            handler: async (_ctx, { store }) => ({ titles: await store.list('notes') }),
          }),
        ]);
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
