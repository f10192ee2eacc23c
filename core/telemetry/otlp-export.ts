import { createRequire } from 'node:module';
import type { TracerProvider } from '@opentelemetry/api';
import { errorMessage, HubosError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { missingOptionalPackage } from '../optional-packages.ts';
import { type OtlpSettings, printableUrl, redactSecrets } from './telemetry-config.ts';

/**
 * The OpenTelemetry SDK, its resource and the OTLP/HTTP exporter: optional peer dependencies of
 * hubos, which an app that exports traces installs. Loaded only then: a start without telemetry
 * loads none of them.
 */
export const TELEMETRY_PACKAGES = [
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-http',
] as const;

// The few shapes used here, written out: the packages are optional, so their types may be absent.
interface ExportResult {
  code: number;
  error?: Error;
}
interface SpanExporter {
  export(spans: unknown[], done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}
interface SdkProvider extends TracerProvider {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}
interface Sdk {
  BasicTracerProvider: new (options: { resource: unknown; spanProcessors: unknown[] }) => SdkProvider;
  BatchSpanProcessor: new (exporter: SpanExporter) => unknown;
}
interface Resources {
  resourceFromAttributes(attributes: Record<string, string>): unknown;
}
interface OtlpHttp {
  OTLPTraceExporter: new (options: { url: string; headers: Record<string, string> }) => SpanExporter;
}

/** A running export: `shutdown()` sends what is still batched and unregisters the provider. */
export interface TraceExport {
  readonly settings: OtlpSettings;
  shutdown(): Promise<void>;
}

function loadPackages(): { sdk: Sdk; resources: Resources; otlp: OtlpHttp } {
  // require, not import: the exporter's packages are CommonJS, and an app's NODE_PATH is honoured.
  const require = createRequire(import.meta.url);
  try {
    return {
      sdk: require('@opentelemetry/sdk-trace-base') as Sdk,
      resources: require('@opentelemetry/resources') as Resources,
      otlp: require('@opentelemetry/exporter-trace-otlp-http') as OtlpHttp,
    };
  } catch (error) {
    throw missingOptionalPackage(error, 'exporting traces (telemetry)', TELEMETRY_PACKAGES) ?? error;
  }
}

/**
 * Registers a tracer provider that batches every span and sends it to `settings.url` over OTLP/HTTP.
 * A failed export is logged (its headers' values and the URL's password redacted), never thrown:
 * tracing must not fail a run.
 */
export function startTraceExport(settings: OtlpSettings, logger: Logger): TraceExport {
  const { sdk, resources, otlp } = loadPackages();
  const require = createRequire(import.meta.url);
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const where = printableUrl(settings.url);
  const exporter = new otlp.OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers } });
  const told = (error: Error | undefined) => {
    const message = redactSecrets(error ? errorMessage(error) : 'no reason given', settings);
    logger.warn(`exporting spans to ${where} failed: ${message}`);
    return new Error(message);
  };
  // Between the processor and the exporter: the SDK hands export errors to a global handler,
  // which must see them with the secrets taken out.
  const redacting: SpanExporter = {
    export: (spans, done) =>
      exporter.export(spans, (result) =>
        done(result.code === 0 ? result : { code: result.code, error: told(result.error) }),
      ),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [new sdk.BatchSpanProcessor(redacting)],
  });
  if (!api.trace.setGlobalTracerProvider(provider)) {
    void provider.shutdown();
    throw new HubosError(
      'CONFIG_INVALID',
      'telemetry: this process already has an OpenTelemetry tracer provider registered (by the app or another kernel): drop `telemetry` from the config to let that one receive the spans, or close the other kernel first',
    );
  }
  return {
    settings,
    async shutdown() {
      try {
        await provider.forceFlush();
        await provider.shutdown();
      } catch (error) {
        logger.warn(`exporting spans to ${where}: ${redactSecrets(errorMessage(error), settings)}`);
      } finally {
        // Only ours: an app's provider registered since stays.
        if (isOurProxy(api, provider)) api.trace.disable();
      }
    },
  };
}

/** The API hands out a proxy whose delegate is the registered provider. */
function isOurProxy(api: typeof import('@opentelemetry/api'), provider: SdkProvider): boolean {
  const proxy = api.trace.getTracerProvider() as { getDelegate?: () => TracerProvider };
  return proxy.getDelegate?.() === provider;
}
