import { defineErrorCodes, definePlugin, defineTool, type KernelView } from 'hubos';
import { describeRoute, getHubOSHooks, Hono, type HubOSEnv, readBody } from 'hubos/server';

/** One saved link. A type alias, not an interface: only aliases are accepted as the store's JSON values. */
export type Bookmark = { id: string; url: string; title: string; createdAt: string };

/** The `bookmarks` service. Every method acts for one owner: a caller's principal id. */
export interface Bookmarks {
  add(owner: string, bookmark: { url: string; title: string }): Promise<Bookmark>;
  /** The owner's bookmarks, oldest first. */
  list(owner: string): Promise<Bookmark[]>;
  /** Throws `BOOKMARK_NOT_FOUND` (404) when the owner has no bookmark with this id. */
  remove(owner: string, id: string): Promise<void>;
}

// Code that imports this package (an `import type` is enough) gets a typed `kernel.service('bookmarks')`.
declare module 'hubos' {
  interface HubosServices {
    bookmarks: Bookmarks;
  }
}

export interface BookmarksOptions {
  /** How many bookmarks one caller may keep (default 500). */
  max?: number;
  /**
   * Whose bookmarks the `bookmarks_list` tool reads when its run has no caller (`tc.principal` is
   * unset: a run started in code); default `local`, the caller of a server without API keys. Over
   * HubOS the tool reads the list of whoever started the run.
   */
  toolOwner?: string;
}

// Error codes are global across plugins, hence the plugin's subject in each name. A route that
// throws one is answered with its status and `{ error: { code, message } }`.
export const errors = defineErrorCodes('bookmarks', { BOOKMARK_NOT_FOUND: 404, BOOKMARKS_FULL: 409 });

// `as const` types readBody's result; the same object documents the body in /api/openapi.json.
const BODY = {
  type: 'object',
  properties: {
    url: { type: 'string', format: 'uri', maxLength: 2048, description: 'The address to keep.' },
    title: { type: 'string', minLength: 1, maxLength: 200, description: 'What to call it.' },
  },
  required: ['url', 'title'],
  additionalProperties: false,
} as const;

function createBookmarks(kernel: KernelView, max: number): Bookmarks {
  // One namespace per owner: listing a caller's bookmarks can never reach another caller's.
  const ns = (owner: string) => `bookmarks:${owner}`;
  // `kernel.store` opens during boot, after apply(): it is read when a method runs, never before.
  return {
    async add(owner, { url, title }) {
      if ((await kernel.store.list(ns(owner))).length >= max)
        throw errors.create('BOOKMARKS_FULL', `${max} bookmarks is the most kept: delete one first`);
      // The time first, so the store's key order is the order they were added in.
      const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      const bookmark: Bookmark = { id, url, title, createdAt: new Date().toISOString() };
      await kernel.store.set(ns(owner), id, bookmark);
      return bookmark;
    },
    async list(owner) {
      const ids = await kernel.store.list(ns(owner));
      const found = await Promise.all(ids.map((id) => kernel.store.get<Bookmark>(ns(owner), id)));
      return found.filter((bookmark) => bookmark !== undefined);
    },
    async remove(owner, id) {
      if (!(await kernel.store.delete(ns(owner), id)))
        throw errors.create('BOOKMARK_NOT_FOUND', `no bookmark "${id}": GET the list for the ids you have`);
    },
  };
}

/** Add to agent.config: `plugins: [['hubos-plugin-bookmarks', { max: 100 }]]`. */
export default definePlugin((options: BookmarksOptions = {}) => ({
  name: 'bookmarks',
  version: '0.1.0',
  provides: ['bookmarks'],
  apply(kernel) {
    const bookmarks = createBookmarks(kernel, options.max ?? 500);
    kernel.provide('bookmarks', bookmarks);

    kernel.hooks.registerTools.tap('bookmarks', (registry) => {
      registry.register(
        defineTool({
          name: 'bookmarks_list',
          description: "Lists the user's saved bookmarks (title and URL). Use it to find a link they kept.",
          inputSchema: { type: 'object', properties: {}, additionalProperties: false },
          permissions: ['bookmarks:read'],
          // The run's caller, as HubOS's auth established it: each key's agent runs see its own list.
          handler: async (_ctx, tc) => ({
            bookmarks: await bookmarks.list(tc.principal ?? options.toolOwner ?? 'local'),
          }),
        }),
      );
    });

    // Runs when the hubos plugin builds its app (`hubos serve`), never without it. Mounted routes get
    // HubOS's auth, limits, error answers and OpenAPI entries; `c.get('principal')` is the caller.
    getHubOSHooks(kernel).routes.tap('bookmarks', ({ api, mount }) => {
      const tags = ['bookmarks'];
      const app = new Hono<HubOSEnv>()
        .post(
          '/',
          describeRoute({
            summary: 'Add a bookmark',
            tags,
            body: BODY,
            responses: { 201: 'Added', 400: 'Invalid body', 409: 'Too many bookmarks' },
          }),
          async (c) => {
            const bookmark = await bookmarks.add(c.get('principal').id, await readBody(c, BODY));
            return c.json(bookmark, 201);
          },
        )
        .get('/', describeRoute({ summary: "List the caller's bookmarks", tags }), async (c) => {
          const owner = c.get('principal').id;
          return c.json({ owner, bookmarks: await bookmarks.list(owner) });
        })
        .delete(
          '/:id',
          describeRoute({
            summary: 'Delete a bookmark',
            tags,
            responses: { 204: 'Deleted', 404: 'No such bookmark' },
          }),
          async (c) => {
            await bookmarks.remove(c.get('principal').id, c.req.param('id'));
            return c.body(null, 204);
          },
        );
      mount(`${api}/bookmarks`, app);
    });
  },
}));
