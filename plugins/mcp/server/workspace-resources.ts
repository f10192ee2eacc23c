import { extname } from 'node:path';
import type { KernelView, ResourceContents, ResourceInfo, ResourceTemplate } from '../../../core/index.ts';
import { listWorkspaceFolder, readWorkspaceFile } from './workspace-file.ts';

/** How many files `resources/list` shows of the workspace (any file can still be read by its URI). */
export const LISTED_FILES = 100;
/** How many folders the listing looks into at most: a tree of empty folders cannot make it walk for long. */
const VISITED_FOLDERS = 500;

/** Folders the listing skips: hidden ones and installed packages say little and hold much. */
const SKIPPED = (folder: string) => folder.startsWith('.') || folder === 'node_modules/';

const MIME_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
};

/** `file:///<path>` for a workspace path (`notes/a b.md` → `file:///notes/a%20b.md`). */
export function fileUri(path: string): string {
  return `file:///${path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The workspace's files as resources: `file:///{+path}`, the path relative to the workspace,
 * read confined to it (no `..`, absolute path or symbolic link leads out), under `fs:read` as
 * the file tools are. Lists the first files it finds; completes paths folder by folder.
 */
export function workspaceFiles(kernel: Pick<KernelView, 'sandbox'>): ResourceTemplate {
  return {
    uriTemplate: 'file:///{+path}',
    name: 'workspace-file',
    title: 'Workspace files',
    description: 'A file of the workspace, by its path in it: file:///notes/todo.md',
    permissions: ['fs:read'],
    list: (ctx) => listFiles(ctx.sandbox.root),
    read: async (uri, { path = '' }, ctx) => [
      contentsOf(uri, path, await readWorkspaceFile(ctx.sandbox.root, path)),
    ],
    complete: { path: (typed) => completePath(kernel.sandbox.root, typed) },
  };
}

/** Text when the bytes are UTF-8 text, else base64; the type from the name's extension. */
function contentsOf(uri: string, path: string, bytes: Buffer): ResourceContents {
  const text = asText(bytes);
  const mimeType = MIME_TYPES[extname(path).toLowerCase()];
  if (text !== undefined) return { uri, mimeType: mimeType ?? 'text/plain', text };
  return { uri, mimeType: mimeType ?? 'application/octet-stream', blob: bytes.toString('base64') };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function asText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The first LISTED_FILES files, folder by folder from the root; symbolic links are not followed. */
async function listFiles(root: string): Promise<ResourceInfo[]> {
  const files: ResourceInfo[] = [];
  const folders = [''];
  for (
    let visited = 0;
    folders.length > 0 && files.length < LISTED_FILES && visited < VISITED_FOLDERS;
    visited++
  ) {
    const folder = folders.shift()!;
    let entries: string[];
    try {
      entries = (await listWorkspaceFolder(root, folder || '.')).sort();
    } catch {
      continue; // gone meanwhile, or unreadable: the others are still listed
    }
    for (const entry of entries) {
      const path = folder + entry;
      if (entry.endsWith('/')) {
        if (!SKIPPED(entry)) folders.push(path);
      } else if (files.length < LISTED_FILES) {
        const mimeType = MIME_TYPES[extname(entry).toLowerCase()];
        files.push({ uri: fileUri(path), name: path, ...(mimeType ? { mimeType } : {}) });
      }
    }
  }
  return files;
}

/** The entries of the typed path's folder that start with its last part (hidden ones when asked for). */
async function completePath(root: string, typed: string): Promise<string[]> {
  const cut = typed.lastIndexOf('/') + 1;
  const folder = typed.slice(0, cut);
  const start = typed.slice(cut);
  let entries: string[];
  try {
    entries = await listWorkspaceFolder(root, folder || '.');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.startsWith(start) && (start.startsWith('.') || !entry.startsWith('.')))
    .sort()
    .map((entry) => folder + entry);
}
