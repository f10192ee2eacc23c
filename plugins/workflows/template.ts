import { HubosError } from '../../core/index.ts';
import type { WorkflowState } from './types.ts';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/**
 * Fills `{{input.topic}}`, `{{steps.fetch}}`, `{{steps.fetch.title}}` from the state: strings as
 * they are, other values as JSON. A path with nothing behind it is an error naming what exists,
 * rather than a silent blank in a prompt.
 */
export function renderTemplate(template: string, state: WorkflowState, where: string): string {
  return template.replace(PLACEHOLDER, (_, path: string) => {
    const value = lookup(state, path, where);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** Renders every string inside a JSON-like value (tool inputs). */
export function renderDeep(value: unknown, state: WorkflowState, where: string): unknown {
  if (typeof value === 'string') {
    // A string that is exactly one placeholder keeps the value's type (a number stays a number).
    const whole = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/.exec(value);
    return whole ? lookup(state, whole[1]!, where) : renderTemplate(value, state, where);
  }
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, state, where));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, state, where)]));
  return value;
}

function lookup(state: WorkflowState, path: string, where: string): unknown {
  const parts = path.split('.');
  let value: unknown = state;
  for (const [index, part] of parts.entries()) {
    // Own properties only ({{input.constructor}} is not data), and undefined counts as missing.
    const owned = value !== null && typeof value === 'object' && Object.hasOwn(value, part);
    if (!owned || (value as Record<string, unknown>)[part] === undefined) {
      const known =
        index === 0
          ? 'input, steps, iterations'
          : parts[index - 1] === 'steps' && index === 1
            ? Object.keys(state.steps).join(', ') || 'none yet'
            : undefined;
      throw new HubosError(
        'CONFIG_INVALID',
        `${where}: the template refers to "{{${path}}}", but "${parts.slice(0, index + 1).join('.')}" has no value${known ? ` (available: ${known})` : ''}`,
        { details: { path } },
      );
    }
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
