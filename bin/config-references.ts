import type { Kernel, PermissionsConfig } from '../core/index.ts';
import { didYouMean, matchesAnyGlob } from '../core/internal.ts';
import type { StepShape } from '../plugins/workflows/index.ts';

/**
 * What a booted config names that does not exist, one line each: workflow steps' agents, tools
 * and teams, the agents and tool patterns `mcp.serve` offers, and permission rules that match no
 * tool and no permission. Boot has already refused agents' and sub-agent types' tool patterns,
 * models and team members that match nothing; these are what a running app only warns about or
 * finds at the first call. Everything is read from the booted kernel, not from the file again.
 */
export function referenceProblems(kernel: Kernel): string[] {
  const known = knownNames(kernel);
  return [
    ...workflowProblems(kernel, known),
    ...mcpServeProblems(kernel, known),
    ...permissionProblems(kernel, known),
  ];
}

interface Known {
  agents: string[];
  tools: string[];
  teams: string[];
  /** Permissions the registered tools declare (`fs:read`). */
  permissions: string[];
  /** Prefixes of tools a source registers later (an MCP server still starting). */
  reserved: string[];
}

function knownNames(kernel: Kernel): Known {
  const tools = kernel.registry.list();
  return {
    agents: kernel.listAgents().map((agent) => agent.id),
    tools: tools.map((tool) => tool.name),
    teams: kernel.hasService('stars') ? [...kernel.service('stars').keys()] : [],
    permissions: [...new Set(tools.flatMap((tool) => tool.permissions ?? []))],
    reserved: kernel.registry.reservations().map((reservation) => reservation.prefix),
  };
}

/** `no agent "x" (did you mean "y"?)`, or with the known names when none is near. */
function unknown(kind: string, name: string, names: readonly string[]): string {
  const guess = didYouMean(name, names);
  if (guess) return `no ${kind} "${name}"${guess}`;
  return `no ${kind} "${name}" (${kind}s: ${names.join(', ') || 'none'})`;
}

/** A tool name or glob that matches a registered tool, or may match one a source registers later. */
function toolExists(pattern: string, known: Known): boolean {
  return (
    known.tools.some((tool) => matchesAnyGlob(tool, [pattern])) ||
    known.reserved.some((prefix) => mayMatchUnder(pattern, prefix))
  );
}

/** Whether a name or glob may match a tool named `<prefix>…` (`gh_issue`, `gh_*`, `*`), as agents' tools do. */
function mayMatchUnder(pattern: string, prefix: string): boolean {
  if (pattern.startsWith(prefix)) return true;
  const star = pattern.indexOf('*');
  return star !== -1 && pattern.search(/[*?]/) === star && prefix.startsWith(pattern.slice(0, star));
}

function toolProblem(pattern: string, known: Known): string {
  return /[*?]/.test(pattern)
    ? `no registered tool matches "${pattern}" (tools: ${known.tools.join(', ') || 'none'})`
    : unknown('tool', pattern, known.tools);
}

function workflowProblems(kernel: Kernel, known: Known): string[] {
  if (!kernel.hasService('workflows')) return [];
  const problems: string[] = [];
  for (const workflow of kernel.service('workflows').values()) {
    const shape = workflow.describe();
    const walk = (steps: StepShape[]) => {
      for (const step of steps) {
        const at = `workflow "${shape.name}" step "${step.id}"`;
        if (step.agent !== undefined && !known.agents.includes(step.agent))
          problems.push(`${at}: ${unknown('agent', step.agent, known.agents)}`);
        if (step.tool !== undefined && !toolExists(step.tool, known))
          problems.push(`${at}: ${unknown('tool', step.tool, known.tools)}`);
        if (step.team !== undefined && !known.teams.includes(step.team))
          problems.push(`${at}: ${unknown('Stars team', step.team, known.teams)}`);
        walk([...(step.steps ?? []), ...(step.else ?? [])]);
      }
    };
    walk(shape.steps);
  }
  return problems;
}

function mcpServeProblems(kernel: Kernel, known: Known): string[] {
  if (!kernel.hasService('mcp')) return [];
  const serve = kernel.service('mcp').serveConfig();
  const problems: string[] = [];
  for (const pattern of serve.tools ?? [])
    if (!toolExists(pattern, known)) problems.push(`mcp.serve.tools: ${toolProblem(pattern, known)}`);
  if (Array.isArray(serve.agents))
    for (const name of serve.agents)
      if (!known.agents.includes(name))
        problems.push(`mcp.serve.agents: ${unknown('agent', name, known.agents)}`);
  return problems;
}

/**
 * A rule matches a tool's name or one of its permissions; an exact one that matches neither is most
 * likely a typo, and a mistyped `deny` silently allows what it meant to refuse. A glob (`mcp:*`)
 * states a policy for what a config may add later, so it may match nothing today.
 */
function permissionProblems(kernel: Kernel, known: Known): string[] {
  const layers: [string, PermissionsConfig | undefined][] = [
    ['permissions', kernel.config.permissions],
    ...Object.entries(kernel.config.agents ?? {}).map(
      ([name, agent]) =>
        [`agents.${name}.permissions`, agent.permissions] as [string, PermissionsConfig | undefined],
    ),
  ];
  const subjects = [...known.tools, ...known.permissions];
  const problems: string[] = [];
  for (const [where, rules] of layers) {
    for (const list of ['deny', 'ask', 'allow'] as const) {
      for (const pattern of rules?.[list] ?? []) {
        if (
          /[*?]/.test(pattern) ||
          subjects.some((subject) => matchesAnyGlob(subject, [pattern])) ||
          toolExists(pattern, known)
        )
          continue;
        const guess = didYouMean(pattern, subjects);
        problems.push(
          `${where}.${list}: "${pattern}" matches no tool and no permission${guess || ` (permissions: ${known.permissions.join(', ') || 'none'})`}`,
        );
      }
    }
  }
  return problems;
}
