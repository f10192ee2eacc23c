/** How deep and how wide a JSON body may be: generous for real requests, far below what could stall or overflow a handler. */
export const JSON_LIMITS = Object.freeze({ maxDepth: 64, maxKeys: 10_000 });

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * Checks JSON text against the limits before it is parsed: nesting deeper than `maxDepth`, or more
 * than `maxKeys` members in one object, answers what was exceeded. One pass over the characters,
 * strings skipped; anything malformed is left for `JSON.parse` to describe.
 */
export function jsonLimitProblem(text: string, limits = JSON_LIMITS): string | undefined {
  // The keys counted per open object; arrays hold -1 (their elements are not keys).
  const open: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (open.length >= limits.maxDepth)
        return `the JSON is nested more than ${limits.maxDepth} levels deep; flatten it (at most ${limits.maxDepth} levels of objects and arrays)`;
      open.push(code === OPEN_OBJECT ? 0 : -1);
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) open.pop();
    else if (code === COLON && open.length > 0) {
      const keys = open[open.length - 1]! + 1;
      if (keys > limits.maxKeys)
        return `a JSON object has more than ${limits.maxKeys} keys; send at most ${limits.maxKeys} keys per object (an array suits long lists)`;
      open[open.length - 1] = keys;
    }
  }
  return undefined;
}
