import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Hono } from 'hono';
import { HubosError } from '../../../core/index.ts';
import { hubosPackageRoot } from '../../../core/internal.ts';
import type { HubOS } from '../hubos.ts';

/** The page's files, in STATIC_DIR. */
const FILES = {
  'page.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'question.js': 'text/javascript; charset=utf-8',
  'parts.js': 'text/javascript; charset=utf-8',
  'agent-panel.js': 'text/javascript; charset=utf-8',
  'workflows.js': 'text/javascript; charset=utf-8',
  'mcp-auth.js': 'text/javascript; charset=utf-8',
  'studio.js': 'text/javascript; charset=utf-8',
  'studio-api.js': 'text/javascript; charset=utf-8',
  'studio-format.js': 'text/javascript; charset=utf-8',
  'runs-view.js': 'text/javascript; charset=utf-8',
  'usage-chart.js': 'text/javascript; charset=utf-8',
  'run-page.js': 'text/javascript; charset=utf-8',
  'session-view.js': 'text/javascript; charset=utf-8',
  'trace.js': 'text/javascript; charset=utf-8',
  'live-trace.js': 'text/javascript; charset=utf-8',
  'team.js': 'text/javascript; charset=utf-8',
  'compare-view.js': 'text/javascript; charset=utf-8',
  'agents-view.js': 'text/javascript; charset=utf-8',
  'experiments-view.js': 'text/javascript; charset=utf-8',
  'experiment-page.js': 'text/javascript; charset=utf-8',
  'experiment-compare.js': 'text/javascript; charset=utf-8',
  'experiment-parts.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'studio.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
} as const;

type FileName = keyof typeof FILES;

/**
 * `static/` beside this module (the sources, or an unbundled build); in the bundled package this
 * module is inside a chunk, and the build copies the folder to dist/plugins/hubos/ui/static/.
 */
const STATIC_DIR = (() => {
  const beside = new URL('./static/', import.meta.url);
  if (existsSync(beside)) return beside;
  return pathToFileURL(join(hubosPackageRoot(), 'dist/plugins/hubos/ui/static/'));
})();

let loaded: Promise<Record<FileName, string>> | undefined;

/** Reads the files once per process; a missing file fails the server build, naming what to fix. */
function loadFiles(): Promise<Record<FileName, string>> {
  loaded ??= (async () => {
    const entries = await Promise.all(
      (Object.keys(FILES) as FileName[]).map(async (name) => {
        try {
          return [name, await readFile(new URL(name, STATIC_DIR), 'utf8')] as const;
        } catch (error) {
          throw new HubosError(
            'CONFIG_INVALID',
            `the HubOS page file ${fileURLToPath(new URL(name, STATIC_DIR))} is missing: the build must copy plugins/hubos/ui/static/ to dist/plugins/hubos/ui/static/`,
            { cause: error },
          );
        }
      }),
    );
    return Object.fromEntries(entries) as Record<FileName, string>;
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

const escapeAttribute = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );

interface Asset {
  body: string;
  type: string;
  etag: string;
}

function asset(body: string, type: string): Asset {
  return { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

/**
 * The chat page: `GET /` (and `/ui/`) serves it, `GET /ui/<file>` its script, style and icon.
 * Public paths (the page asks for the API key itself when the API answers 401).
 */
export async function uiRoutes(app: Hono, hubos: HubOS): Promise<void> {
  const files = await loadFiles();
  // Made on first request, once the plugins have mounted their routes: the page learns from the
  // route docs whether the workflows plugin serves any, whether MCP servers are used and whether
  // Cosmos serves its agents (and asks
  // nothing that would answer 404).
  let pageAsset: Asset | undefined;
  const page = () => {
    const served = (path: string) => hubos.docs.some((doc) => doc.method === 'get' && doc.path === path);
    const workflows = `${hubos.apiPrefix}/workflows`;
    const mcpServers = `${hubos.apiPrefix}/mcp/servers`;
    const cosmos = `${hubos.apiPrefix}/cosmos/agents`;
    pageAsset ??= asset(
      files['page.html']
        .replaceAll('{{API_PREFIX}}', escapeAttribute(hubos.apiPrefix))
        .replaceAll('{{WORKFLOWS}}', served(workflows) ? escapeAttribute(workflows) : '')
        .replaceAll('{{MCP_SERVERS}}', served(mcpServers) ? escapeAttribute(mcpServers) : '')
        .replaceAll('{{COSMOS}}', served(cosmos) ? escapeAttribute(cosmos) : '')
        .replaceAll('{{NAME}}', escapeAttribute(hubos.name)),
      FILES['page.html'],
    );
    return pageAsset;
  };
  const assets = new Map<string, Asset>();
  for (const name of Object.keys(FILES) as FileName[])
    if (name !== 'page.html') assets.set(name, asset(files[name], FILES[name]));

  const send = (asset: Asset, ifNoneMatch: string | undefined) => {
    const headers = { etag: asset.etag, 'cache-control': 'no-cache' };
    if (ifNoneMatch?.split(/\s*,\s*/).includes(asset.etag))
      return new Response(null, { status: 304, headers });
    return new Response(asset.body, { headers: { ...headers, 'content-type': asset.type } });
  };

  app.get('/', (c) => send(page(), c.req.header('if-none-match')));
  app.get('/ui/', (c) => send(page(), c.req.header('if-none-match')));
  app.get('/ui/:file', (c) => {
    const found = assets.get(c.req.param('file'));
    if (!found) return c.json({ error: { code: 'NOT_FOUND', message: `no file ${c.req.path}` } }, 404);
    return send(found, c.req.header('if-none-match'));
  });
}
