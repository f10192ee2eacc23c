/** Stable error codes: callers branch on `code`, never on message text. */
export type HubosErrorCode =
  | 'CONFIG_NOT_FOUND'
  | 'CONFIG_LOAD_FAILED'
  | 'CONFIG_INVALID'
  | 'PLUGIN_INVALID'
  | 'PLUGIN_NOT_FOUND'
  | 'PLUGIN_LOAD_FAILED'
  | 'PLUGIN_DUPLICATE'
  | 'PLUGIN_DEPENDENCY_MISSING'
  | 'PLUGIN_DEPENDENCY_CYCLE'
  | 'PLUGIN_APPLY_FAILED'
  | 'PLUGIN_APPLY_TIMEOUT'
  | 'HOOK_FAILED'
  | 'KERNEL_STATE'
  | 'TOOL_INVALID'
  | 'TOOL_DUPLICATE'
  | 'TOOL_NOT_FOUND'
  | 'TOOL_INPUT_INVALID'
  | 'TOOL_FAILED'
  | 'MODEL_NOT_FOUND'
  | 'MODEL_CONFIG'
  | 'MODEL_HTTP_ERROR'
  | 'MODEL_TIMEOUT'
  | 'MODEL_RESPONSE_INVALID'
  | 'AGENT_EXISTS'
  | 'AGENT_NOT_FOUND'
  | 'AGENT_INVALID'
  | 'RUN_CANCELLED'
  | 'RUN_FAILED'
  | 'RUN_NOT_RUNNING'
  | 'APPROVAL_NOT_FOUND'
  | 'APPROVAL_DECIDED'
  | 'STORE_FAILED'
  | 'MODEL_DUPLICATE'
  | 'COSMOS_FULL'
  | 'TEMPLATE_NOT_FOUND';

export interface HubosErrorOptions {
  cause?: unknown;
  /** Structured facts about the failure (plugin name, hook name, key path...). */
  details?: Record<string, unknown>;
}

const BRAND = Symbol.for('hubos.error');

export class HubosError extends Error {
  readonly code: HubosErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: HubosErrorCode, message: string, options: HubosErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HubosError';
    this.code = code;
    this.details = options.details ?? {};
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
