import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

export interface ReadBody {
  /** Parsed JSON for a JSON content type, else text (or a note for binary content). */
  body: unknown;
  /** The body was longer than the cap and was cut there. */
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a response body (counted after decompression, so a small gzip bomb
 * cannot blow the cap), then stops reading and closes the stream.
 */
export async function readBody(
  stream: Readable,
  headers: Record<string, string>,
  maxBytes: number,
): Promise<ReadBody> {
  const source = decompress(stream, headers['content-encoding']);
  const parts: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of source) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      if (size + buffer.length > maxBytes) {
        parts.push(buffer.subarray(0, maxBytes - size));
        truncated = true;
        break;
      }
      parts.push(buffer);
      size += buffer.length;
    }
  } finally {
    // Leaving early must close the socket rather than let the server keep sending.
    if (!stream.destroyed) stream.destroy();
  }
  return { body: decode(Buffer.concat(parts), headers['content-type'] ?? '', truncated), truncated };
}

function decompress(stream: Readable, encoding: string | undefined): Readable {
  const name = encoding?.trim().toLowerCase();
  const decoder =
    name === 'gzip' || name === 'x-gzip'
      ? createGunzip()
      : name === 'deflate'
        ? createInflate()
        : name === 'br'
          ? createBrotliDecompress()
          : undefined;
  // pipeline forwards a failure on either side to the stream we read from.
  return decoder ? pipeline(stream, decoder, () => {}) : stream;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b|^text\/json\b/i;
const TEXT_TYPE = /^text\/|json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|csv|graphql/i;

function decode(bytes: Buffer, contentType: string, truncated: boolean): unknown {
  const type = contentType.trim();
  // A model cannot use raw bytes; say what came instead of printing mojibake.
  if (!TEXT_TYPE.test(type) && bytes.subarray(0, 8192).includes(0)) {
    return `[binary body: ${bytes.length}${truncated ? '+' : ''} bytes of ${type || 'unknown type'} not shown]`;
  }
  const text = bytes.toString('utf8');
  // A cut JSON document no longer parses: hand back the text that did arrive.
  if (!JSON_TYPE.test(type) || truncated || text.trim() === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
