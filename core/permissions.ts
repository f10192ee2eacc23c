import { globToRegex } from './glob.ts';
/** What the policy says of a tool call: run it, ask a human first, or refuse it. */
export type PermissionDecision = 'allow' | 'ask' | 'deny';

/**
 * The `permissions` config (global, and per agent template): glob patterns (`*` any text, `?` one
 * character) over tool permissions (`'fs:*'`, `'shell:exec'`) and tool names (`'bash'`, `'*'`).
 */
export interface PermissionsConfig {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
  /** How long an `ask` waits for an answer before the call is denied (default 5 minutes). */
  approvalTimeoutMs?: number;
}

export interface PermissionVerdict {
  decision: PermissionDecision;
  /** The pattern that decided; absent when no rule matched (the default: allow). */
  rule?: string;
  /** The permission or tool name the rule matched. */
  permission?: string;
}

/** What the policy looks at: a tool's name and declared permissions. */
export interface PermissionSubject {
  name: string;
  permissions?: readonly string[];
}

export interface Policy {
  decide(tool: PermissionSubject): PermissionVerdict;
  readonly approvalTimeoutMs: number;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

const LISTS = ['deny', 'ask', 'allow'] as const;
const SEVERITY: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 };

interface Layer {
  lists: { decision: PermissionDecision; rules: { pattern: string; regex: RegExp }[] }[];
}

/**
 * Builds the policy. Each of the tool's subjects (its name, then each permission) is decided by
 * the first layer with a matching rule — `overrides` (an agent's own rules) before `config` — and
 * within a layer deny beats ask beats allow. The tool gets the strictest of its subjects'
 * decisions; the rule named is the first match of that list. Nothing matching allows.
 * @internal
 */
export function createPolicy(config: PermissionsConfig = {}, overrides?: PermissionsConfig): Policy {
  const layers = [overrides, config].filter((c): c is PermissionsConfig => c !== undefined).map(compile);
  // Tools are few and fixed per agent, and decide() runs on every call: remember each verdict.
  const cache = new WeakMap<PermissionSubject, PermissionVerdict>();
  return {
    approvalTimeoutMs:
      overrides?.approvalTimeoutMs ?? config.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    decide(tool) {
      let verdict = cache.get(tool);
      if (!verdict) {
        verdict = decide(layers, tool);
        cache.set(tool, verdict);
      }
      return verdict;
    },
  };
}

function decide(layers: readonly Layer[], tool: PermissionSubject): PermissionVerdict {
  let best: Ranked | undefined;
  for (const subject of [tool.name, ...(tool.permissions ?? [])]) {
    const found = decideSubject(layers, subject);
    // Strictest wins; on a tie, the rule found first (agent layer, then list order), then the earlier subject.
    if (found && (!best || outranks(found, best))) best = found;
  }
  return best ? best.verdict : { decision: 'allow' };
}

interface Ranked {
  verdict: PermissionVerdict;
  /** Where the rule sits: its layer, then its index in its list. */
  order: [number, number];
}

function outranks(a: Ranked, b: Ranked): boolean {
  const severity = SEVERITY[a.verdict.decision] - SEVERITY[b.verdict.decision];
  if (severity !== 0) return severity > 0;
  return a.order[0] < b.order[0] || (a.order[0] === b.order[0] && a.order[1] < b.order[1]);
}

function decideSubject(layers: readonly Layer[], subject: string): Ranked | undefined {
  for (const [layerIndex, layer] of layers.entries()) {
    for (const { decision, rules } of layer.lists) {
      const index = rules.findIndex(({ regex }) => regex.test(subject));
      if (index >= 0) {
        return {
          verdict: { decision, rule: rules[index]!.pattern, permission: subject },
          order: [layerIndex, index],
        };
      }
    }
  }
  return undefined;
}

function compile(config: PermissionsConfig): Layer {
  return {
    lists: LISTS.map((decision) => ({
      decision,
      rules: (config[decision] ?? []).map((pattern) => ({ pattern, regex: globToRegex(pattern) })),
    })),
  };
}

/**
 * `shell:exec (rule deny 'shell:*')`: what a refused call tells the model.
 * @internal
 */
export function describeVerdict(verdict: PermissionVerdict, tool: PermissionSubject): string {
  const what = verdict.permission ?? tool.name;
  return verdict.rule ? `${what} (rule ${verdict.decision} '${verdict.rule}')` : what;
}

const PATTERNS = (what: string) =>
  ({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: 200 },
    description: `Glob patterns over permissions ('fs:*') and tool names ('bash', '*') to ${what}.`,
  }) as const;

/** The `permissions` schema; the global key carries the timeout's default, an agent's does not (so it inherits). */
export function permissionsSchema(withDefaults: boolean) {
  return {
    type: 'object',
    description:
      'Tool permission policy: deny beats ask beats allow, the first matching pattern of a list names the rule, a tool takes the strictest decision over its name and permissions, and nothing matching allows.',
    properties: {
      allow: PATTERNS('run without asking'),
      ask: PATTERNS('pause the run for a human approval'),
      deny: PATTERNS('refuse'),
      approvalTimeoutMs: {
        type: 'integer',
        minimum: 1,
        maximum: 2_147_483_647,
        description:
          'How long an approval request waits before the call is denied (default 300000: 5 minutes).',
        ...(withDefaults ? { default: DEFAULT_APPROVAL_TIMEOUT_MS } : {}),
      },
    },
    additionalProperties: false,
  } as const;
}
