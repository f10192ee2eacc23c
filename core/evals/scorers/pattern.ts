/**
 * A case's `pattern` as a RegExp: `/source/flags`, or a bare source. Throws SyntaxError (the
 * engine's words) for one that does not compile.
 */
export function parsePattern(text: string): RegExp {
  const literal = /^\/(.*)\/([dgimsuvy]*)$/s.exec(text);
  return literal ? new RegExp(literal[1] as string, literal[2]) : new RegExp(text);
}
