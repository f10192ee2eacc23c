/** Characters that hide a phrase from a pattern and not from a model (`pass\u200Bword`): taken out before matching. */
export const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/g;

/** A text as a pattern should see it, and where each of its units came from in the original. */
export interface FoldedText {
  text: string;
  /** `[from[i], to[i])`: the original text that unit `i` of `text` was folded from. */
  from: Uint32Array;
  to: Uint32Array;
}

/** The folded text alone, for a check that needs no way back (a trip): one pass, no map. */
export function foldedOnly(text: string): string | undefined {
  const folded = text.replace(INVISIBLE, '').normalize('NFKC');
  return folded === text ? undefined : folded;
}

/** A letter or mark with the marks after it (`e` + U+0301), folded together; anything else, one by one. */
const SEGMENT = /\P{M}\p{M}*|\p{M}+/gu;

/**
 * The text with compatibility forms folded (NFKC: `ｐａｓｓ` → `pass`, `e` + U+0301 → `é`) and
 * invisible characters out, keeping the way back to the original so a match can be redacted there.
 * Text with nothing to fold (most of it) is returned as it is, without the map.
 */
export function foldText(text: string): FoldedText | undefined {
  INVISIBLE.lastIndex = 0;
  if (!INVISIBLE.test(text) && text === text.normalize('NFKC')) return undefined;
  // Typed, and grown as needed (NFKC can lengthen a text): a map of a 10 MB text stays 80 MB at most.
  let from: Uint32Array = new Uint32Array(text.length + 16);
  let to: Uint32Array = new Uint32Array(text.length + 16);
  const pieces: string[] = [];
  let length = 0;
  for (const match of text.matchAll(SEGMENT)) {
    const start = match.index;
    const end = start + match[0].length;
    const out = match[0].charCodeAt(0) < 128 && end === start + 1 ? match[0] : fold(match[0]);
    if (length + out.length > from.length) {
      const size = Math.max(from.length * 2, length + out.length);
      from = grown(from, size);
      to = grown(to, size);
    }
    from.fill(start, length, length + out.length);
    to.fill(end, length, length + out.length);
    length += out.length;
    pieces.push(out);
  }
  return { text: pieces.join(''), from, to };
}

const fold = (segment: string) => segment.replace(INVISIBLE, '').normalize('NFKC');

function grown(array: Uint32Array, size: number): Uint32Array {
  const bigger = new Uint32Array(size);
  bigger.set(array);
  return bigger;
}

/** Each match of a global `pattern` in `folded`, as a span of the original text. */
export function originalSpans(folded: FoldedText, pattern: RegExp): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (const match of folded.text.matchAll(pattern)) {
    if (match[0] === '') continue;
    const start = folded.from[match.index]!;
    const end = folded.to[match.index + match[0].length - 1]!;
    // Two matches folded from one piece of the original are one redaction.
    const last = spans.at(-1);
    if (last && start < last.end) last.end = Math.max(last.end, end);
    else spans.push({ start, end });
  }
  return spans;
}
