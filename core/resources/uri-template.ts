/**
 * RFC 6570 templates as resource URIs use them: `{name}` (one segment: no `/`, backslash or NUL,
 * even percent-encoded) and `{+name}` (reserved expansion, `/` allowed: check such paths yourself).
 * Returns the variables a URI gives, or undefined when it does not match.
 */
export function matchUriTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const reserved: boolean[] = [];
  let pattern = '^';
  let last = 0;
  for (const match of template.matchAll(/\{(\+?)([A-Za-z0-9_]+)\}/g)) {
    pattern += escapeRegExp(template.slice(last, match.index));
    pattern += match[1] === '+' ? '(.+?)' : '([^/?#]+)';
    names.push(match[2]!);
    reserved.push(match[1] === '+');
    last = match.index + match[0].length;
  }
  pattern += `${escapeRegExp(template.slice(last))}$`;
  const found = new RegExp(pattern).exec(uri);
  if (!found) return undefined;
  const variables: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    const value = safeDecode(found[i + 1]!);
    // One segment stays one segment once decoded: `%2F..%2F` cannot climb out of it.
    if (!reserved[i] && /[/\\\0]/.test(value)) return undefined;
    variables[name] = value;
  }
  return variables;
}

/** The variable names a template uses, in order. */
export function templateVariables(template: string): string[] {
  return [...template.matchAll(/\{\+?([A-Za-z0-9_]+)\}/g)].map((match) => match[1]!);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
