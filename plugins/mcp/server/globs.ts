/** Whether `name` matches one of the glob patterns (`*` any text, `?` one character). */
export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => globToRegex(pattern).test(name));
}

const compiled = new Map<string, RegExp>();

function globToRegex(glob: string): RegExp {
  let regex = compiled.get(glob);
  if (!regex) {
    const body = glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    regex = new RegExp(`^${body}$`);
    compiled.set(glob, regex);
  }
  return regex;
}
