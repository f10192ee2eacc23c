/**
 * The globs of tool names, permissions and agent ids (`notes_*`, `fs:*`, `shell:?xec`): `*` any
 * text, `?` one character, everything else literal. One definition, so a pattern means the same
 * in an agent's `tools`, the permission policy and what is served over MCP.
 */
export function globToRegex(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

const compiled = new Map<string, RegExp>();

/**
 * Whether `name` matches one of the globs (each compiled once: callers test on every request).
 * @internal
 */
export function matchesAnyGlob(name: string, globs: readonly string[]): boolean {
  return globs.some((glob) => {
    let regex = compiled.get(glob);
    if (!regex) {
      regex = globToRegex(glob);
      compiled.set(glob, regex);
    }
    return regex.test(name);
  });
}
