import { type AgentTemplate, canSee, type Principal } from '../../core/index.ts';
import { matchesAnyGlob } from '../../core/internal.ts';
import { COSMOS_ERROR_CODES } from './errors.ts';
import type { CreateOptions } from './types.ts';

/*
 * Who may do what with Cosmos over HTTP. An agent created there is its creator's (`owner`: the
 * principal's id): another key without `admin` neither lists, reads nor deletes it (404, as if
 * absent). An agent without owner (created in code, by Stars, or stored before owners were kept) is
 * shared, like the config's agents: listed and described to every caller, deleted by admins only.
 * A key without `admin` may only narrow its template: fewer tools, the same model, metadata that adds
 * keys without changing the template's. Admin keys (and the keyless server's local caller) may do all.
 */

/** Whether `principal` sees an agent of this owner: a shared one (no owner), its own, or any with an admin key. */
export function mayView(principal: Principal, owner: string | undefined): boolean {
  return owner === undefined || canSee(principal, owner);
}

/** Throws `COSMOS_ADMIN_ONLY` (403) unless `principal` is an admin; `what` ends "… needs an admin API key". */
export function requireAdmin(principal: Principal, what: string): void {
  if (principal.admin === true) return;
  throw COSMOS_ERROR_CODES.create(
    'COSMOS_ADMIN_ONLY',
    `${what} needs an admin API key (a server.apiKeys entry with admin: true)`,
    { details: { principal: principal.id } },
  );
}

/** Whether every tool `requested` may select is one `allowed` (a template's `tools`) selects too. */
function covered(requested: string, allowed: readonly string[]): boolean {
  const wildcard = /[*?]/.test(requested);
  return allowed.some((pattern) => {
    if (requested === pattern) return true;
    // A plain name the template's pattern matches.
    if (!wildcard) return matchesAnyGlob(requested, [pattern]);
    // A narrower glob under a template's `prefix*` (`http_get*` under `http_*`, anything under `*`).
    return /^[^*?]*\*$/.test(pattern) && requested.startsWith(pattern.slice(0, -1));
  });
}

/**
 * Refuses (`COSMOS_OVERRIDE_DENIED`, 403) a create by a key without `admin` that asks for more than
 * its template gives: tools its `tools` do not select (compared as patterns, since tools registered
 * later are selected again), a model other than its own, metadata changing a key it sets.
 * `instructions` may change: they shape the agent, not what it can reach. An unknown template is
 * left to `create` (404 `TEMPLATE_NOT_FOUND`).
 */
export function checkOverrides(
  principal: Principal,
  template: AgentTemplate | undefined,
  options: CreateOptions,
): void {
  if (principal.admin === true || template === undefined) return;
  const { templateId } = options;
  const deny = (message: string, details: Record<string, unknown>) =>
    COSMOS_ERROR_CODES.create('COSMOS_OVERRIDE_DENIED', message, {
      details: { template: templateId, ...details },
    });
  if (options.tools !== undefined) {
    const allowed = template.tools ?? [];
    const beyond = options.tools.filter((tool) => !covered(tool, allowed));
    if (beyond.length > 0) {
      throw deny(
        `tools ${beyond.map((tool) => JSON.stringify(tool)).join(', ')} go beyond template "${templateId}" ` +
          `(its tools: ${allowed.length > 0 ? allowed.join(', ') : 'none'}): a key without admin may ` +
          'only narrow them, so list tools the template selects, or leave `tools` out to get all of them',
        { tools: beyond, allowed },
      );
    }
  }
  if (options.model !== undefined && options.model !== template.model) {
    const own = typeof template.model === 'string' ? `"${template.model}"` : "the server's default";
    throw deny(
      `model ${describeModel(options.model)} is not template "${templateId}"'s (${own}): only an admin key may ` +
        'choose another model; leave `model` out',
      { model: typeof options.model === 'string' ? options.model : describeModel(options.model) },
    );
  }
  const fixed = template.metadata ?? {};
  const changed = Object.keys(options.metadata ?? {}).filter(
    (key) =>
      Object.hasOwn(fixed, key) && JSON.stringify(fixed[key]) !== JSON.stringify(options.metadata![key]),
  );
  if (changed.length > 0) {
    throw deny(
      `metadata ${changed.map((key) => JSON.stringify(key)).join(', ')} would change template "${templateId}"'s: ` +
        'a key without admin may add metadata keys, not change the ones the template sets',
      { metadata: changed },
    );
  }
}

/** A model as words: its reference, or a model object's provider and id. */
function describeModel(model: unknown): string {
  if (typeof model === 'string') return `"${model}"`;
  const { provider, modelId } = (model ?? {}) as { provider?: unknown; modelId?: unknown };
  return typeof provider === 'string' ? `object "${provider}:${String(modelId ?? '')}"` : 'object';
}
