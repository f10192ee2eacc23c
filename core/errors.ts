/** What a coded error answers over HTTP: its status, and headers that go with it. */
export interface ErrorCodeSpec {
  status: number;
  headers?: Record<string, string>;
}

/** A declared code's spec and the owner that declared it. */
export interface DeclaredCode extends ErrorCodeSpec {
  owner: string;
}

// Kept on globalThis: a plugin built against another copy of the package declares into the same table.
const TABLE = Symbol.for('hubos.error-codes');
const shared = globalThis as { [TABLE]?: Map<string, DeclaredCode> };
shared[TABLE] ??= new Map();
const declared = shared[TABLE];

/** The codes an owner declared, and a typed way to raise them. */
export interface ErrorCodes<C extends string> {
  readonly owner: string;
  readonly codes: { readonly [K in C]: ErrorCodeSpec };
  /** A HubosError with this code (its status and headers as declared). */
  create(code: C, message: string, options?: HubosErrorOptions): HubosError;
}

/**
 * Declares an owner's error codes with their HTTP statuses, in one place (a status, or
 * `{ status, headers }`). A server answers any HubosError by the status its code declares.
 * A code belongs to one owner: declaring it again for another owner throws.
 *
 * `const errors = defineErrorCodes('billing', { BILLING_LIMIT: 402 })` then
 * `throw errors.create('BILLING_LIMIT', 'the monthly limit is reached: raise billing.limit')`.
 */
export function defineErrorCodes<const C extends Record<string, number | ErrorCodeSpec>>(
  owner: string,
  specs: C,
): ErrorCodes<Extract<keyof C, string>> {
  const codes: Record<string, ErrorCodeSpec> = {};
  for (const [code, value] of Object.entries(specs)) {
    const spec: ErrorCodeSpec = typeof value === 'number' ? { status: value } : value;
    if (!/^[A-Z][A-Z0-9_]*$/.test(code))
      throw new TypeError(`error code "${code}" of "${owner}": use UPPER_SNAKE_CASE`);
    if (!Number.isInteger(spec.status) || spec.status < 400 || spec.status > 599)
      throw new TypeError(
        `error code "${code}" of "${owner}": status must be an HTTP error status (400-599)`,
      );
    const other = declared.get(code);
    if (other && other.owner !== owner)
      throw new TypeError(`error code "${code}" of "${owner}" is already declared by "${other.owner}"`);
    declared.set(code, { ...spec, owner });
    codes[code] = spec;
  }
  return Object.freeze({
    owner,
    codes: Object.freeze(codes) as ErrorCodes<Extract<keyof C, string>>['codes'],
    create: (code: string, message: string, options?: HubosErrorOptions) =>
      new HubosError(code, message, options),
  });
}

/** The status and headers declared for a code, and who declared it; undefined for an undeclared code. */
export function errorCodeSpec(code: string): Readonly<DeclaredCode> | undefined {
  return declared.get(code);
}

/** The kernel's own error codes, each with the HTTP status a server answers it with. */
export const CORE_ERROR_CODES = defineErrorCodes('core', {
  CONFIG_NOT_FOUND: 500,
  CONFIG_LOAD_FAILED: 500,
  CONFIG_INVALID: 400,
  PLUGIN_INVALID: 500,
  PLUGIN_NOT_FOUND: 500,
  PLUGIN_LOAD_FAILED: 500,
  // A plugin's options do not fit the schema it declared (definePlugin({ optionsSchema }, factory)).
  PLUGIN_OPTIONS_INVALID: 500,
  PLUGIN_DUPLICATE: 500,
  PLUGIN_DEPENDENCY_MISSING: 500,
  PLUGIN_DEPENDENCY_CYCLE: 500,
  PLUGIN_APPLY_FAILED: 500,
  PLUGIN_APPLY_TIMEOUT: 500,
  SERVICE_NOT_FOUND: 500,
  SERVICE_DUPLICATE: 500,
  HOOK_FAILED: 500,
  // A plugin calls a hook another plugin owns: only the owner calls its hooks, the others tap them.
  HOOK_NOT_OWNED: 500,
  KERNEL_STATE: 500,
  TOOL_INVALID: 400,
  TOOL_DUPLICATE: 409,
  TOOL_NOT_FOUND: 404,
  TOOL_INPUT_INVALID: 400,
  TOOL_FAILED: 500,
  MODEL_NOT_FOUND: 400,
  MODEL_CONFIG: 500,
  MODEL_HTTP_ERROR: 502,
  MODEL_TIMEOUT: 504,
  MODEL_RESPONSE_INVALID: 502,
  MODEL_DUPLICATE: 409,
  AGENT_EXISTS: 409,
  AGENT_NOT_FOUND: 404,
  AGENT_INVALID: 400,
  RUN_CANCELLED: 409,
  RUN_FAILED: 500,
  RUN_NOT_RUNNING: 409,
  RUN_NOT_FOUND: 404,
  RUN_ENDED: 409,
  // Deleting a run that has not ended: cancel it first.
  RUN_ACTIVE: 409,
  // Starting or queueing a run under an id (a workflow run's) that another run has.
  RUN_EXISTS: 409,
  RUN_INTERRUPTED: 503,
  RUN_TIMEOUT: 504,
  // A run's step asked by a number that is not one (a seq is a whole number from 1).
  STEP_SEQ_INVALID: 400,
  STEP_NOT_FOUND: 404,
  // A list of runs asked with a filter, limit or cursor that makes no sense.
  RUN_QUERY_INVALID: 400,
  // Usage asked with a time, bucket, grouping or filter that makes no sense.
  USAGE_QUERY_INVALID: 400,
  APPROVAL_NOT_FOUND: 404,
  // A list of approvals asked with a limit or cursor that makes no sense.
  APPROVAL_QUERY_INVALID: 400,
  APPROVAL_DECIDED: 409,
  // An answer to a question (an approval request carrying one) that does not fit its schema.
  APPROVAL_ANSWER_INVALID: 400,
  // A record table given a name, key, index value or query that makes no sense (see recordTable).
  RECORD_INVALID: 400,
  // A tool asked a human or a model where none is offered (see ToolContext.elicit / sample).
  ELICITATION_UNAVAILABLE: 409,
  // A guardrail stopped the run: its input, an answer or a tool call did not pass (the message names it).
  GUARDRAIL_TRIPPED: 422,
  // A run passed one of its budgets (steps, tokens, cost, time): the message names which.
  BUDGET_EXCEEDED: 422,
  // A budget that makes no sense (not a positive number; a cost budget for a model without a price).
  BUDGET_INVALID: 400,
  // A guardrail spec names no guardrail, or its options make no sense.
  GUARDRAIL_INVALID: 400,
  // An eval dataset that cannot be read: the message names the line and field.
  DATASET_INVALID: 400,
  // A scorer spec names no scorer, or its options make no sense.
  SCORER_INVALID: 400,
  EXPERIMENT_NOT_FOUND: 404,
  // A list of experiments asked with a filter, limit or cursor that makes no sense.
  EXPERIMENT_QUERY_INVALID: 400,
  RESOURCE_INVALID: 500,
  RESOURCE_DUPLICATE: 409,
  RESOURCE_NOT_FOUND: 404,
  PROMPT_INVALID: 500,
  PROMPT_DUPLICATE: 409,
  PROMPT_NOT_FOUND: 404,
  SAMPLING_UNAVAILABLE: 409,
  // The database or Redis is away (restarting): the request may be tried again shortly.
  STORE_FAILED: { status: 503, headers: { 'retry-after': '5' } },
  BUS_FAILED: { status: 503, headers: { 'retry-after': '5' } },
});

/** The kernel's codes. Plugins declare theirs with `defineErrorCodes`; callers branch on `code`, never on message text. */
export type CoreErrorCode = keyof typeof CORE_ERROR_CODES.codes;

/** Any error code: the kernel's, or one a plugin declared. */
export type HubosErrorCode = CoreErrorCode | (string & {});

export interface HubosErrorOptions {
  cause?: unknown;
  /** Structured facts about the failure (plugin name, hook name, key path...). */
  details?: Record<string, unknown>;
  /** Overrides the status its code declares (e.g. an HTTP error raised by a route). */
  status?: number;
  /** Response headers that go with it over HTTP (`retry-after`, `www-authenticate`). */
  headers?: Record<string, string>;
}

const BRAND = Symbol.for('hubos.error');

/**
 * The one error type of HubOS and its plugins: a stable `code`, a message that says what to do,
 * and the HTTP `status` (with `headers`) its code was declared with, so any server answers it the same way.
 */
export class HubosError extends Error {
  readonly code: HubosErrorCode;
  readonly details: Record<string, unknown>;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: HubosErrorCode, message: string, options: HubosErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HubosError';
    this.code = code;
    this.details = options.details ?? {};
    const spec = declared.get(code);
    this.status = options.status ?? spec?.status ?? 500;
    this.headers = { ...spec?.headers, ...options.headers };
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** True for any HubosError, even one thrown by another copy of the package. */
  static is(value: unknown, code?: HubosErrorCode): value is HubosError {
    const branded = typeof value === 'object' && value !== null && BRAND in value;
    return branded && (code === undefined || (value as unknown as HubosError).code === code);
  }
}

/** The message of anything thrown, for error text that must never say "[object Object]". */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
