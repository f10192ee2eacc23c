import type { Part } from '@a2a-js/sdk';
import { contentToText, type ToolContent } from '../../../core/index.ts';
import { textPart } from './parts.ts';

/** Largest base64 payload carried as a file part; a bigger one is named in words (SSE events stop near 4 MB). */
const MAX_PART_CHARS = 1_000_000;
/** Base64 carried in one message at most, all parts together. */
const MAX_MESSAGE_CHARS = 2_000_000;

/**
 * A tool result's content parts as A2A parts: images, audio and binary resources as file parts
 * (bytes and media type), resource links as file parts by URL, text (and embedded text resources)
 * as text parts. Binary data over the limits is named in words instead, so a status message stays
 * small enough for every client to read.
 */
export function toolContentParts(content: readonly ToolContent[]): Part[] {
  let budget = MAX_MESSAGE_CHARS;
  const fits = (base64: string) => {
    if (base64.length > MAX_PART_CHARS || base64.length > budget) return false;
    budget -= base64.length;
    return true;
  };
  return content.map((item) => {
    switch (item.type) {
      case 'text':
        return textPart(item.text);
      case 'image':
      case 'audio':
        return fits(item.data) ? bytesPart(item.data, item.mimeType, item.type) : tooLarge(item);
      case 'resource': {
        const { resource } = item;
        const filename = lastSegment(resource.uri);
        if ('text' in resource)
          return part({ $case: 'text', value: resource.text }, resource.mimeType ?? 'text/plain', filename, {
            uri: resource.uri,
          });
        const mediaType = resource.mimeType ?? 'application/octet-stream';
        return fits(resource.blob)
          ? { ...bytesPart(resource.blob, mediaType, filename), metadata: { uri: resource.uri } }
          : tooLarge(item);
      }
      case 'resource_link':
        return part(
          { $case: 'url', value: item.uri },
          item.mimeType ?? '',
          item.name,
          item.description ? { description: item.description } : undefined,
        );
      default:
        return textPart(contentToText([item]));
    }
  });
}

function part(
  content: NonNullable<Part['content']>,
  mediaType: string,
  filename: string,
  metadata?: Record<string, unknown>,
): Part {
  return { content, mediaType, filename, metadata };
}

function bytesPart(base64: string, mediaType: string, filename: string): Part {
  return part({ $case: 'raw', value: Buffer.from(base64, 'base64') }, mediaType, filename);
}

function tooLarge(item: ToolContent): Part {
  return textPart(`${contentToText([item])} (too large to carry in a status message)`);
}

/** The name a URI ends with (`file:///notes/a.txt` → `a.txt`), for a file part's filename. */
function lastSegment(uri: string): string {
  const path = uri.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return path.slice(path.lastIndexOf('/') + 1);
}
