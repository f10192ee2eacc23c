import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { defineTool } from '../../../core/index.ts';
import { confinePath, openAt, openDirInside, type PinnedDir, workspacePath } from './confine.ts';
import { fsError } from './errors.ts';
import { HARD_LINK_HOW_TO_ALLOW, HARD_LINK_REASON, hasOtherHardLinks } from './hard-links.ts';
import { globMatcher, type TextMatcher, textMatcher } from './matcher.ts';
import { openForRead } from './open-file.ts';
import type { FilesystemLimits } from './options.ts';
import { RegexPool } from './regex-pool.ts';
import { looksBinary } from './text.ts';
import { walk } from './walk.ts';
import { workspaceRoot } from './workspace.ts';

/** Folders deeper than this below the searched one are not entered (one descriptor per level). */
const MAX_DEPTH = 64;
/** A matched line longer than this is cut: minified files would flood the result. */
const MAX_LINE_CHARS = 500;
/** How many skipped hard-linked files the note names. */
const NAMED_HARD_LINKS = 5;

export interface SearchMatch {
  /** Path relative to the workspace root. */
  file: string;
  /** 1-based line number. */
  line: number;
  text: string;
}

/**
 * filesystem_search. Result:
 * `{ matches: SearchMatch[], truncated, files_searched, files_skipped, hard_links_skipped?, note? }`
 * — matches in file order (depth-first, sorted by name), then line order; `truncated` when
 * max_results stopped the search; `files_skipped` counts binary, oversized, unreadable and
 * hard-linked files; the last two, when hard-linked files were skipped, count them and say why.
 * Regular expressions run in `pool`, which the tool set shares (one per `filesystemTools()`).
 */
export function searchTool(
  limits: FilesystemLimits,
  pool = new RegexPool({ size: limits.searchRegexWorkers, timeoutMs: limits.searchRegexTimeoutMs }),
) {
  return defineTool({
    name: 'filesystem_search',
    description:
      'Search the contents of text files in the workspace for a regular expression (JavaScript syntax) ' +
      'or, with literal: true, for exact text. Returns file, line number and line of each match. ' +
      'glob filters files: "*.ts" matches names at any depth, "src/**/*.ts" paths below the searched ' +
      'folder. Binary files, symbolic links' +
      (limits.readHardLinkedFiles ? '' : ', files with more than one hard link') +
      ` and files over ${limits.maxSearchFileBytes} bytes are skipped.`,
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'Regular expression, or text with literal.' },
        path: {
          type: 'string',
          default: '.',
          description: 'Folder (or file) to search, relative to the workspace root (default: the root).',
        },
        glob: { type: 'string', description: 'Only search files matching this glob, e.g. "*.md".' },
        literal: { type: 'boolean', default: false, description: 'Treat pattern as plain text.' },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: limits.maxSearchResults,
          default: Math.min(50, limits.maxSearchResults),
          description: 'Most matches to return.',
        },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    permissions: ['fs:read'],
    handler: async ({ signal }, { input, sandbox }) => {
      const matches = textMatcher(input.pattern, input.literal, pool);
      const root = await workspaceRoot(sandbox);
      const abs = confinePath(root, input.path);
      const max = Math.min(input.max_results, limits.maxSearchResults);
      const search = new Search(matches, max, limits, signal);
      const dir = await openDirInside(root, abs, input.path).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined; // a single file
        throw fsError(error, input.path, { ENOENT: `no such file or directory: ${input.path}` });
      });
      try {
        if (dir) await search.folder(dir, workspacePath(root, abs), globMatcher(input.glob));
        else {
          // A file named outright is refused as filesystem_read refuses it, hard links included.
          const { handle } = await openForRead(root, input.path, limits.readHardLinkedFiles);
          await search.file(handle, workspacePath(root, abs));
        }
      } catch (error) {
        throw fsError(error, input.path);
      } finally {
        await dir?.handle.close();
      }
      return search.result();
    },
  });
}

/** The state of one search: matches so far and what was skipped. */
class Search {
  readonly matches: SearchMatch[] = [];
  filesSearched = 0;
  filesSkipped = 0;
  /** Files skipped for having other hard links, and the first few of their paths (for the note). */
  hardLinksSkipped = 0;
  readonly hardLinkExamples: string[] = [];

  readonly test: TextMatcher;
  readonly max: number;
  readonly limits: FilesystemLimits;
  readonly signal: AbortSignal;

  constructor(test: TextMatcher, max: number, limits: FilesystemLimits, signal: AbortSignal) {
    this.test = test;
    this.max = max;
    this.limits = limits;
    this.signal = signal;
  }

  get full(): boolean {
    return this.matches.length >= this.max;
  }

  async folder(dir: PinnedDir, path: string, glob: (path: string) => boolean) {
    const prefix = path === '.' ? '' : `${path}/`;
    for await (const entry of walk(dir, path, MAX_DEPTH, this.signal)) {
      if (entry.type !== 'file' || !glob(entry.path.slice(prefix.length))) continue;
      const handle = await openAt(entry.dir, entry.name, constants.O_RDONLY, undefined, entry.path).catch(
        () => undefined, // gone, replaced by a symlink or FIFO, or not readable: skip it
      );
      if (handle) await this.file(handle, entry.path);
      else this.filesSkipped++;
      if (this.full) return;
    }
  }

  /** Searches one opened file, and closes it. */
  async file(handle: FileHandle, path: string) {
    try {
      const stat = await handle.stat();
      // Checked on the opened descriptor: the file read below is the one checked here.
      if (!this.limits.readHardLinkedFiles && hasOtherHardLinks(stat)) {
        this.filesSkipped++;
        if (this.hardLinksSkipped++ < NAMED_HARD_LINKS) this.hardLinkExamples.push(path);
        return;
      }
      if (!stat.isFile() || stat.size > this.limits.maxSearchFileBytes) {
        this.filesSkipped++;
        return;
      }
      const bytes = await handle.readFile();
      if (looksBinary(bytes)) {
        this.filesSkipped++;
        return;
      }
      this.filesSearched++;
      const content = bytes.toString('utf8');
      const hits = await this.test.match(content, this.max - this.matches.length, path, this.signal);
      const lines = content.split('\n');
      for (const i of hits) {
        const line = (lines[i] ?? '').replace(/\r$/, '');
        const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
        this.matches.push({ file: path, line: i + 1, text });
      }
    } finally {
      await handle.close();
    }
  }

  result() {
    return {
      matches: this.matches,
      truncated: this.full,
      files_searched: this.filesSearched,
      files_skipped: this.filesSkipped,
      ...(this.hardLinksSkipped > 0
        ? {
            hard_links_skipped: this.hardLinksSkipped,
            note: hardLinkNote(this.hardLinksSkipped, this.hardLinkExamples),
          }
        : {}),
    };
  }
}

function hardLinkNote(count: number, examples: string[]): string {
  const more = count > examples.length ? `, and ${count - examples.length} more` : '';
  return (
    `skipped ${count} hard-linked file${count === 1 ? '' : 's'} (${examples.join(', ')}${more}): ` +
    `${HARD_LINK_REASON}. To search them, ${HARD_LINK_HOW_TO_ALLOW}`
  );
}
