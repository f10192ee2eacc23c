import type { GuardrailVerdict } from '../guardrail.ts';

/** A check of one text: pass (undefined), its replacement, or a trip. */
export type TextVerdict =
  | undefined
  | { action: 'pass' }
  | { action: 'rewrite'; value: string; reason: string }
  | { action: 'trip'; reason: string };

type Container = Record<string, unknown> | unknown[];

/** Arrays and plain objects are walked; other objects (a Date, a Buffer) are left as they are. */
function isContainer(value: unknown): value is Container {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

interface Place {
  container: Container;
  key: string | number;
  parent: Place | undefined;
}

/** `body.items[2].text`, for a reason that says where. */
function pathOf(place: Place | undefined): string {
  const keys: (string | number)[] = [];
  for (let at = place; at; at = at.parent) keys.push(at.key);
  return keys
    .reverse()
    .reduce<string>(
      (path, key) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key),
      '',
    );
}

/**
 * Applies a text check to `value`: a string itself, or every string inside JSON (tool arguments,
 * a tool's output). A trip stops at the first string that trips (its path in the reason); rewrites
 * give a copy of the value with each rewritten string in place, the original untouched. The walk
 * keeps its own stack, so a value nested 100,000 deep is checked without overflowing the call stack.
 */
export function checkEachString(
  value: unknown,
  check: (text: string) => TextVerdict,
): GuardrailVerdict | undefined {
  if (typeof value === 'string') return check(value);
  if (!isContainer(value)) return undefined;
  const rewrites: { place: Place; value: string; reason: string }[] = [];
  // A key is text a model reads too (a map keyed by e-mail addresses): checked like a value.
  const renames = new Map<Container, Map<string, string>>();
  const keyReasons: string[] = [];
  const seen = new Set<object>([value]);
  const stack: { container: Container; place: Place | undefined }[] = [
    { container: value, place: undefined },
  ];
  while (stack.length > 0) {
    const { container, place } = stack.pop()!;
    const entries: [string | number, unknown][] = Array.isArray(container)
      ? container.map((item, i) => [i, item])
      : Object.entries(container);
    for (const [key, item] of entries) {
      if (typeof key === 'string') {
        const verdict = check(key);
        if (verdict?.action === 'trip')
          return { action: 'trip', reason: `${verdict.reason} (at ${pathOf(place) || 'the top'}, a key)` };
        if (verdict?.action === 'rewrite') {
          if (!renames.has(container)) renames.set(container, new Map());
          renames.get(container)!.set(key, verdict.value);
          keyReasons.push(verdict.reason);
        }
      }
      const here: Place = { container, key, parent: place };
      if (typeof item === 'string') {
        const verdict = check(item);
        if (verdict?.action === 'trip')
          return { action: 'trip', reason: `${verdict.reason} (at ${pathOf(here)})` };
        if (verdict?.action === 'rewrite')
          rewrites.push({ place: here, value: verdict.value, reason: verdict.reason });
      } else if (isContainer(item) && !seen.has(item)) {
        seen.add(item);
        stack.push({ container: item, place: here });
      }
    }
  }
  if (rewrites.length === 0 && renames.size === 0) return undefined;
  const copy = copyContainers(value);
  for (const { place, value: text } of rewrites) setOwn(copy.get(place.container)!, place.key, text);
  for (const [container, renamed] of renames)
    renameKeys(copy.get(container) as Record<string, unknown>, renamed);
  const reasons = [...new Set([...rewrites.map((r) => r.reason), ...keyReasons])];
  return { action: 'rewrite', value: copy.get(value), reason: reasons.slice(0, 5).join('; ') };
}

/** A shallow copy of every container in `root`, wired to each other like the originals (without recursion). */
function copyContainers(root: Container): Map<Container, Container> {
  const copies = new Map<Container, Container>();
  const order: Container[] = [root];
  copies.set(root, Array.isArray(root) ? [...root] : { ...root });
  for (let i = 0; i < order.length; i++) {
    const original = order[i]!;
    const copy = copies.get(original)!;
    for (const [key, item] of Object.entries(original)) {
      if (!isContainer(item)) continue;
      let child = copies.get(item);
      if (!child) {
        child = Array.isArray(item) ? [...item] : { ...item };
        copies.set(item, child);
        order.push(item);
      }
      setOwn(copy, key, child);
    }
  }
  return copies;
}

/** Sets a key as data, even `__proto__` (a key JSON may have), which plain assignment would take as the prototype. */
function setOwn(container: Container, key: string | number, value: unknown): void {
  Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Renames keys of an object in place, keeping their order; two keys rewritten alike (two addresses,
 * both `[redacted:email]`) stay two: the second is `[redacted:email] (2)`.
 */
function renameKeys(object: Record<string, unknown>, renamed: Map<string, string>): void {
  const entries = Object.entries(object);
  const taken = new Set(entries.map(([key]) => key).filter((key) => !renamed.has(key)));
  for (const [key] of entries) delete object[key];
  for (const [key, item] of entries) {
    let name = renamed.get(key) ?? key;
    if (renamed.has(key)) {
      const base = name;
      for (let n = 2; taken.has(name); n++) name = `${base} (${n})`;
      taken.add(name);
    }
    setOwn(object, name, item);
  }
}
