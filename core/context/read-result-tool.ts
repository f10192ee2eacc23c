import type { Tool } from '../tools/tool.ts';
import { readKept } from './kept-results.ts';
import { MAX_READ_CHARS, readChars, readLines, searchText } from './result-reading.ts';

/** The name the model calls it by. */
export const READ_RESULT_TOOL = 'read_result';

interface ReadInput {
  handle: string;
  offset?: number;
  length?: number;
  line?: number;
  lines?: number;
  search?: string;
  regex?: boolean;
  ignoreCase?: boolean;
  context?: number;
  maxMatches?: number;
}

/**
 * Reads more of a tool result that was too large for the model: by characters, by lines, or by
 * searching it. A run gets it once one of its results was kept; it reads only what the runs of
 * the caller's own principal kept.
 */
export const readResultTool: Tool<ReadInput, string> = {
  name: READ_RESULT_TOOL,
  description:
    'Reads more of a tool result that was too large to show whole (its handle is given where it was cut). ' +
    'Give offset and length for characters, line and lines for lines, or search (a text, or a regular expression with regex: true) to find the lines that match, with context lines around them.',
  inputSchema: {
    type: 'object',
    properties: {
      handle: { type: 'string', minLength: 1, maxLength: 200, description: 'The handle of the kept result.' },
      offset: { type: 'integer', minimum: 0, description: 'The first character to read (0-based).' },
      length: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_READ_CHARS,
        description: 'How many characters to read (default 8000).',
      },
      line: { type: 'integer', minimum: 1, description: 'The first line to read (1-based).' },
      lines: { type: 'integer', minimum: 1, maximum: 2000, description: 'How many lines (default 200).' },
      search: {
        type: 'string',
        minLength: 1,
        maxLength: 1000,
        description:
          'Finds the lines holding this text (or matching it as a regular expression, with regex).',
      },
      regex: { type: 'boolean', description: 'search is a JavaScript regular expression (default false).' },
      ignoreCase: { type: 'boolean', description: 'Matches ignoring case (default false).' },
      context: {
        type: 'integer',
        minimum: 0,
        maximum: 10,
        description: 'Lines shown before and after each match (default 1).',
      },
      maxMatches: {
        type: 'integer',
        minimum: 1,
        maximum: 100,
        description: 'At most this many matches (default 20).',
      },
    },
    required: ['handle'],
    additionalProperties: false,
  },
  idempotent: true,
  async handler(_options, tc) {
    const { input } = tc;
    const { text } = await readKept(tc.store, input.handle, tc.principal);
    if (input.search !== undefined)
      return searchText(text, {
        pattern: input.search,
        ...(input.regex !== undefined ? { regex: input.regex } : {}),
        ...(input.ignoreCase !== undefined ? { ignoreCase: input.ignoreCase } : {}),
        ...(input.context !== undefined ? { context: input.context } : {}),
        ...(input.maxMatches !== undefined ? { maxMatches: input.maxMatches } : {}),
      });
    if (input.line !== undefined) return readLines(text, input.line, input.lines);
    return readChars(text, input.offset ?? 0, input.length);
  },
};
