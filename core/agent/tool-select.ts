import { HubosError } from '../errors.ts';
import type { Tool } from '../tools/tool.ts';

/** The registered tools an agent's `tools` names or globs (`'notes_*'`, `'*'`) select, in registration order. */
export function selectTools(agent: string, patterns: readonly string[], tools: readonly Tool[]): Tool[] {
  const matchers = patterns.map((pattern) => ({ pattern, regex: globToRegex(pattern) }));
  for (const { pattern, regex } of matchers) {
    if (!tools.some((tool) => regex.test(tool.name))) {
      const known = tools.map((tool) => tool.name).join(', ') || 'none';
      throw new HubosError(
        'AGENT_INVALID',
        `agent "${agent}": no registered tool matches "${pattern}" (registered: ${known})`,
        {
          details: { agent, pattern },
        },
      );
    }
  }
  return tools.filter((tool) => matchers.some(({ regex }) => regex.test(tool.name)));
}

function globToRegex(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}
