import { definePlugin, defineTool } from 'hubos';

export interface NotesOptions {
  /** How many notes the store keeps before refusing new ones. */
  maxNotes?: number;
}

/**
 * A local tool plugin: notes kept in the kernel's store (`tc.store`), so they last as long as
 * the store does. Shows defineTool's typed input and a plugin factory with options.
 */
export const notes = definePlugin((options: NotesOptions = {}) => {
  const maxNotes = options.maxNotes ?? 50;
  return {
    name: 'notes',
    version: '1.0.0',
    apply(kernel) {
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
                throw new Error(`the notebook is full (${maxNotes} notes): delete one first`);
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
    },
  };
});
