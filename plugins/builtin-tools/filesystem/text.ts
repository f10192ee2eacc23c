import type { FileHandle } from 'node:fs/promises';

/** How many leading bytes decide whether a file is binary: a NUL byte there means binary, as in git. */
const SNIFF_BYTES = 8000;
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, SNIFF_BYTES).includes(0);
}

export class BinaryFileError extends Error {}

export interface LineWindow {
  /** Lines `from`..`to` with their line endings, at most the byte cap. */
  text: string;
  from: number;
  /** The last line shown (`from - 1` when none). */
  to: number;
  /** The file's line count, known when the read reached its end. */
  totalLines?: number;
  /** The byte cap cut the window short. */
  truncated: boolean;
  /** Only the start of line `to` is shown: that one line is longer than the cap. */
  partialLine: boolean;
  /** Where to continue, when the file goes on after the window. */
  nextLine?: number;
}

/**
 * Reads lines `from`..`from + limit - 1` (1-based) of a text file in chunks and stops at the byte
 * cap, so a huge file is never read whole. Lines before `from` are counted, not kept.
 */
export async function readLineWindow(
  handle: FileHandle,
  size: number,
  from: number,
  limit: number | undefined,
  maxBytes: number,
): Promise<LineWindow> {
  const last = limit === undefined ? Number.POSITIVE_INFINITY : from + limit - 1;
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(size, SNIFF_BYTES)));
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let current: Buffer[] = []; // bytes of the line being scanned, when it is inside the window
  let currentBytes = 0;
  let lineHasBytes = false;
  let line = 1;
  let to = from - 1;
  let position = 0;
  const result = (extra: Partial<LineWindow> = {}): LineWindow => ({
    text: Buffer.concat(kept).toString('utf8'),
    from,
    to,
    truncated: false,
    partialLine: false,
    ...extra,
  });

  // Reads up to the size fstat gave (a snapshot: bytes appended meanwhile are left for the next call),
  // which also spares the extra read that would only report the end of the file.
  while (position < size) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - position), position);
    if (position === 0 && looksBinary(chunk.subarray(0, bytesRead))) throw new BinaryFileError();
    if (bytesRead === 0) break;
    position += bytesRead;
    const data = chunk.subarray(0, bytesRead);
    for (let start = 0; start < data.length; ) {
      const newline = data.indexOf(NEWLINE, start);
      const end = newline === -1 ? data.length : newline + 1;
      lineHasBytes = true;
      if (line >= from) {
        const piece = Buffer.from(data.subarray(start, end));
        if (keptBytes + currentBytes + piece.length > maxBytes) {
          if (keptBytes > 0) return result({ truncated: true, nextLine: line });
          // The first line alone is over the cap: show its start, continue after it.
          const head = Buffer.concat([...current, piece]);
          kept.push(head.subarray(0, utf8Boundary(head, maxBytes)));
          to = line;
          return result({ truncated: true, partialLine: true, nextLine: line + 1 });
        }
        current.push(piece);
        currentBytes += piece.length;
      }
      start = end;
      if (newline === -1) break;
      if (line >= from) {
        kept.push(...current);
        keptBytes += currentBytes;
        to = line;
      }
      current = [];
      currentBytes = 0;
      lineHasBytes = false;
      line++;
      if (line > last) return result(end < data.length || position < size ? { nextLine: line } : {});
    }
  }
  // End of file: a last line without a newline is still a line.
  if (currentBytes > 0) {
    kept.push(...current);
    to = line;
  }
  return result({ totalLines: lineHasBytes ? line : line - 1 });
}

/** The largest length <= `room` that does not split a UTF-8 sequence of `bytes`. */
function utf8Boundary(bytes: Buffer, room: number): number {
  let end = Math.min(room, bytes.length);
  while (end > 0 && end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return end;
}
