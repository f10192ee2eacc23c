import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver took: its headers and its body, byte for byte. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An OTLP JSON attribute value (`ExportTraceServiceRequest`). */
type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number; message?: string };
  service: unknown;
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));

/**
 * An OTLP/HTTP receiver on a free port: takes `POST /v1/traces` (JSON, the exporter's default
 * encoding), answers 200 (or 401 with `refuse`'s status message) and keeps every request as it came.
 */
export async function startReceiver(options: { refuse?: (headers: IncomingHttpHeaders) => string } = {}) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      // A collector that refuses, saying why in its status line (a 401 quoting the key it got, say).
      if (options.refuse) {
        res.writeHead(401, options.refuse(req.headers));
        return res.end();
      }
      res.writeHead(req.method === 'POST' && req.url === '/v1/traces' ? 200 : 404, {
        'content-type': 'application/json',
      });
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Every span of every request, decoded. */
    spans(): ExportedSpan[] {
      return received.flatMap((request) => {
        const decoded = JSON.parse(request.body) as {
          resourceSpans?: {
            resource?: { attributes?: KeyValue[] };
            scopeSpans?: {
              spans?: (Omit<ExportedSpan, 'attributes' | 'service'> & { attributes?: KeyValue[] })[];
            }[];
          }[];
        };
        return (decoded.resourceSpans ?? []).flatMap((resourceSpan) => {
          const service = attributesOf(resourceSpan.resource?.attributes)['service.name'];
          return (resourceSpan.scopeSpans ?? []).flatMap((scope) =>
            (scope.spans ?? []).map((span) => ({
              ...span,
              attributes: attributesOf(span.attributes),
              service,
            })),
          );
        });
      });
    },
    /** Every body as one string: what a secret must not be found in. */
    bytes(): string {
      return received.map((request) => request.body).join('\n');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
