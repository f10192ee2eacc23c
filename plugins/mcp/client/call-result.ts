import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** One content block as text a model reads: text as is, other media described in a line. */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes, not shown]`;
    case 'resource_link':
      return `[resource ${block.name}: ${block.uri}${block.description ? ` (${block.description})` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') return resource.text;
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}, binary, not shown]`;
    }
    default:
      return `[${(block as { type: string }).type} content, not shown]`;
  }
}

/** The result's content as one text, blocks separated by a blank line. */
export function resultText(result: CallToolResult): string {
  return (result.content ?? []).map(blockText).join('\n\n').trim();
}

/**
 * What a successful call gives the model: the text when that is all there is; the structured
 * content when the text is empty or only repeats it as JSON (servers are asked to do so); both
 * (`{ text, structuredContent }`) when they say different things.
 */
export function callOutput(result: CallToolResult): unknown {
  const text = resultText(result);
  const structured = result.structuredContent;
  if (structured === undefined) return text;
  if (text === '' || repeats(text, structured)) return structured;
  return { text, structuredContent: structured };
}

function repeats(text: string, structured: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(structured);
  } catch {
    return false;
  }
}
