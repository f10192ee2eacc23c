import { didYouMean } from '../closest-name.ts';
import { HubosError } from '../errors.ts';
import { globToRegex } from '../glob.ts';
import type { ToolReservation } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';

/** @internal */
export interface SelectToolsOptions {
  /**
   * Prefixes of tools a source will register later (`registry.reservations()`): a pattern that
   * starts with one may match nothing yet.
   */
  reserved?: readonly ToolReservation[];
  /** Select what matches and never throw (re-selecting a live agent's tools after a change). */
  allowUnmatched?: boolean;
}

/**
 * The registered tools an agent's `tools` names or globs (`'notes_*'`, `'*'`) select, in registration
 * order. Throws AGENT_INVALID for a pattern that matches nothing, unless it may match a reserved prefix's tools.
 * @internal
 */
export function selectTools(
  agent: string,
  patterns: readonly string[],
  tools: readonly Tool[],
  options: SelectToolsOptions = {},
): Tool[] {
  const matchers = patterns.map((pattern) => ({ pattern, regex: globToRegex(pattern) }));
  for (const { pattern, regex } of matchers) {
    if (options.allowUnmatched || tools.some((tool) => regex.test(tool.name))) continue;
    if (options.reserved?.some(({ prefix }) => mayMatchUnder(pattern, prefix))) continue;
    const known = tools.map((tool) => tool.name).join(', ') || 'none';
    throw new HubosError(
      'AGENT_INVALID',
      `agent "${agent}": no registered tool matches "${pattern}"${didYouMean(
        pattern,
        tools.map((tool) => tool.name),
      )} (registered: ${known})`,
      { details: { agent, pattern } },
    );
  }
  return tools.filter((tool) => matchers.some(({ regex }) => regex.test(tool.name)));
}

/**
 * Whether `pattern` may match a tool named `<prefix>...`: it starts with the prefix (`gh_*`,
 * `gh_issue`), or its text before a `*` starts the prefix (`*`, `g*`), so the `*` can take the rest.
 */
function mayMatchUnder(pattern: string, prefix: string): boolean {
  if (pattern.startsWith(prefix)) return true;
  const star = pattern.indexOf('*');
  const wildcard = pattern.search(/[*?]/);
  return star !== -1 && wildcard === star && prefix.startsWith(pattern.slice(0, star));
}
