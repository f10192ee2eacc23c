/** The `telemetry` key: where a run's OpenTelemetry spans go, and whether they carry content. */
export interface TelemetryConfig {
  /**
   * Export spans over OTLP/HTTP. `endpoint` is the collector's base URL (`http://localhost:4318`;
   * `/v1/traces` is added unless the URL already ends with it); `headers` go with each export
   * (e.g. an API key of a hosted backend) and appear in no span nor error message.
   */
  otlp?: { endpoint?: string; headers?: Record<string, string> };
  /** The `service.name` of the spans (default OTEL_SERVICE_NAME, else `hubos`). */
  serviceName?: string;
  /**
   * Export prompts, model answers and tool arguments and results as span attributes (default
   * false: spans carry names, models, token counts and timings, not what was said).
   */
  includeContent?: boolean;
}

export const TELEMETRY_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    otlp: {
      type: 'object',
      properties: {
        endpoint: { type: 'string', pattern: '^https?://' },
        headers: { type: 'object', additionalProperties: { type: 'string', writeOnly: true } },
      },
      additionalProperties: false,
    },
    serviceName: { type: 'string', minLength: 1 },
    includeContent: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

/** What the kernel exports with, once the config and the environment are read. */
export interface OtlpSettings {
  /** The full traces URL (…/v1/traces). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  includeContent: boolean;
}

const DEFAULT_ENDPOINT = 'http://localhost:4318';
const TRACES_PATH = '/v1/traces';

/**
 * The export settings, or undefined when nothing asks for an export: `telemetry.otlp` in the config,
 * or the standard OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT variables (the
 * config wins key by key). OTEL_SDK_DISABLED=true turns the variables' export off.
 */
export function otlpSettings(
  config: TelemetryConfig | undefined,
  env: NodeJS.ProcessEnv = process.env,
): OtlpSettings | undefined {
  const envOn = env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
  const tracesEndpoint = envOn ? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() : undefined;
  const baseEndpoint = envOn ? env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() : undefined;
  if (config?.otlp === undefined && !tracesEndpoint && !baseEndpoint) return undefined;
  // The spec: the signal-specific variable is the whole URL, the general one a base to add the path to.
  const url = config?.otlp?.endpoint
    ? tracesUrl(config.otlp.endpoint)
    : tracesEndpoint || tracesUrl(baseEndpoint || DEFAULT_ENDPOINT);
  return {
    url,
    headers: {
      ...(envOn ? parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS) : {}),
      ...(envOn ? parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) : {}),
      ...config?.otlp?.headers,
    },
    serviceName: config?.serviceName ?? (env.OTEL_SERVICE_NAME?.trim() || 'hubos'),
    includeContent: config?.includeContent === true,
  };
}

function tracesUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith(TRACES_PATH) ? trimmed : `${trimmed}${TRACES_PATH}`;
}

/** `key=value,key2=value2`, values percent-encoded (the OTLP exporter spec's format). */
function parseHeaders(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (value ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const raw = pair.slice(at + 1).trim();
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // A stray % is kept as written.
    }
    if (key) headers[key] = decoded;
  }
  return headers;
}

/**
 * `message` with every header value and the URL's credentials replaced: errors of an export are
 * logged, and a collector's API key must not be.
 */
export function redactSecrets(message: string, settings: Pick<OtlpSettings, 'headers' | 'url'>): string {
  let out = message;
  const secrets = Object.values(settings.headers).filter((value) => value.length >= 4);
  try {
    const { username, password } = new URL(settings.url);
    for (const part of [username, password]) if (part) secrets.push(part, decodeURIComponent(part));
  } catch {
    // Not a URL: nothing to take from it.
  }
  // Longest first, so a secret containing another is replaced whole.
  for (const secret of secrets.sort((a, b) => b.length - a.length))
    out = out.split(secret).join('[redacted]');
  return out;
}

/** The URL as it may be logged: without user and password. */
export function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(an invalid URL)';
  }
}
