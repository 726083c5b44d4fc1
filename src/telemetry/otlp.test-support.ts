/**
 * A local OTLP/HTTP trace receiver for tests: a node:http server on 127.0.0.1 that accepts
 * `POST /v1/traces` as a collector does, decodes http/json bodies (ExportTraceServiceRequest,
 * hex trace and span ids) into flat spans, and records every request's content type, so a test
 * can also see that http/protobuf arrived. Not a test file itself.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../test/harness.ts';

type AttributeValue = string | number | boolean;

/** One span as exported, with the resource it came from. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, AttributeValue>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export interface ReceivedExport {
  path: string;
  contentType: string;
  headers: http.IncomingHttpHeaders;
  bytes: number;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly exports: ReceivedExport[];
  /** How to answer: 200 by default; a status makes exports fail; `hang` never answers. */
  answer: { status: number } | 'hang';
  /** Waits until `count` spans match `filter`; returns them. */
  waitForSpans(
    filter: (span: ReceivedSpan) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpAttribute {
  key: string;
  value: {
    stringValue?: string;
    intValue?: number | string;
    doubleValue?: number;
    boolValue?: boolean;
  };
}

interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function attributesOf(list: OtlpAttribute[] = []): Record<string, AttributeValue> {
  const result: Record<string, AttributeValue> = {};
  for (const { key, value } of list) {
    if (value.stringValue !== undefined) result[key] = value.stringValue;
    else if (value.intValue !== undefined) result[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) result[key] = value.doubleValue;
    else if (value.boolValue !== undefined) result[key] = value.boolValue;
  }
  return result;
}

export function decodeOtlpJson(body: OtlpJson): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          statusCode: span.status?.code ?? 0,
          resource,
        });
      }
    }
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      receiver.exports.push({ path: req.url ?? '', contentType, headers: req.headers, bytes: body.length });
      if (receiver.answer === 'hang') {
        hanging.add(res);
        return;
      }
      if (receiver.answer.status !== 200) {
        res.writeHead(receiver.answer.status, { 'content-type': 'application/json' });
        res.end('{"code":14,"message":"unavailable"}');
        return;
      }
      if (req.method === 'POST' && req.url === '/v1/traces' && contentType.startsWith('application/json')) {
        receiver.spans.push(...decodeOtlpJson(JSON.parse(body.toString('utf8')) as OtlpJson));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      // http/protobuf: an empty ExportTraceServiceResponse is an empty body.
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: OtlpReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: [],
    exports: [],
    answer: { status: 200 },
    waitForSpans(filter, count = 1, timeoutMs = 8000) {
      return waitFor(
        () => {
          const matching = receiver.spans.filter(filter);
          return matching.length >= count ? matching : undefined;
        },
        timeoutMs,
        `${count} exported span(s)`,
      );
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
