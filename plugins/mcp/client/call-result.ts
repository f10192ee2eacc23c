import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { type ToolContent, toolOutput } from '../../../core/index.ts';

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

/** A block as HubOS content: only the fields HubOS knows (no annotations, no `_meta`). */
export function toContent(block: ContentBlock): ToolContent | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: block.type, data: block.data, mimeType: block.mimeType };
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: block.name,
        ...(block.description ? { description: block.description } : {}),
        ...(block.mimeType ? { mimeType: block.mimeType } : {}),
      };
    case 'resource': {
      const { uri, mimeType } = block.resource;
      const body =
        'text' in block.resource && typeof block.resource.text === 'string'
          ? { text: block.resource.text }
          : { blob: String((block.resource as { blob?: unknown }).blob ?? '') };
      return { type: 'resource', resource: { uri, ...(mimeType ? { mimeType } : {}), ...body } };
    }
    default:
      return undefined;
  }
}

/**
 * What a successful call gives the model. A result with media (images, audio, resources) stays
 * rich: its parts reach the model where the provider takes them, and every surface. Otherwise
 * the text when that is all there is; the structured
 * content when the text is empty or only repeats it as JSON (servers are asked to do so); both
 * (`{ text, structuredContent }`) when they say different things.
 */
export function callOutput(result: CallToolResult): unknown {
  const blocks = result.content ?? [];
  if (blocks.some((block) => block.type !== 'text')) {
    const content = blocks.map(toContent).filter((part) => part !== undefined);
    return toolOutput({
      content,
      ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}),
    });
  }
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
