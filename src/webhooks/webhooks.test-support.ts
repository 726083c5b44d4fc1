/**
 * Test helpers for webhook tests: a real HTTP receiver on 127.0.0.1 that records every request
 * (raw body and headers) and answers as the test tells it to. Not a test file itself.
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordEvent, type EventType, type RecordedEvent } from '../events/events.ts';
import { waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import { loadWebhookConfig, type WebhookConfig } from './webhooks.config.ts';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  /** JSON.parse of the body. */
  body: { id: string; event: string; createdAt: string; test?: boolean; data: Record<string, unknown> };
  receivedAt: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the client times out or is stopped). */
  hang?: boolean;
}

export type Responder = (request: ReceivedRequest, index: number) => Reply;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  respond: Responder;
  /** Waits until `count` requests matching `filter` have arrived; returns them. */
  waitForRequests(
    count: number,
    filter?: (r: ReceivedRequest) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  respond: Responder = () => ({ status: 204 }),
  port = 0,
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    requests,
    respond,
    async waitForRequests(count, filter = () => true, timeoutMs = 8000) {
      return waitFor(
        () => {
          const matching = requests.filter(filter);
          return matching.length >= count ? matching : undefined;
        },
        timeoutMs,
        `${count} webhook request(s)`,
      );
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let body: ReceivedRequest['body'];
      try {
        body = JSON.parse(rawBody.toString('utf8')) as ReceivedRequest['body'];
      } catch {
        body = { id: '', event: '', createdAt: '', data: {} };
      }
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
      };
      const index = requests.length;
      requests.push(request);
      const reply = receiver.respond(request, index);
      if (reply.hang) {
        hanging.add(res);
        return;
      }
      const send = (): void => {
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}

/** The test configuration for webhook tests: loopback http allowed, a compressed retry schedule. */
export function webhookTestConfig(overrides: Partial<WebhookConfig> = {}): { webhooks: WebhookConfig } {
  return {
    webhooks: {
      ...loadWebhookConfig({}),
      allowHttp: true,
      retryScheduleMs: [50, 50, 50],
      timeoutMs: 2000,
      ...overrides,
    },
  };
}

export const as = (token: string) => ({ authorization: `Bearer ${token}` });

export interface CreatedEndpoint {
  id: string;
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
}

export async function registerEndpoint(
  t: TestApp,
  shop: TestStore,
  url: string,
  events: string[] = ['*'],
): Promise<CreatedEndpoint> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/admin/v1/webhooks/endpoints',
    headers: as(shop.staffToken),
    payload: { url, events },
  });
  if (response.statusCode !== 201) throw new Error(`endpoint not created: ${response.body}`);
  return response.json<CreatedEndpoint>();
}

/** Records one event in a committed transaction, as any module does. */
export async function emit(
  t: TestApp,
  storeId: string,
  type: EventType,
  data: Record<string, unknown> = {},
  resource = `test:${randomUUID()}`,
): Promise<RecordedEvent> {
  return t.db.kysely.transaction().execute((trx) => recordEvent(trx, { storeId, type, resource, data }));
}

export function hmacHex(secret: string, raw: Buffer | string): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}

/** The signature values of a request: the current secret's, then the previous one's during a rotation. */
export function signaturesOf(request: ReceivedRequest): string[] {
  return [request.headers['x-webhook-signature'], request.headers['x-webhook-signature-previous']].filter(
    (value): value is string => typeof value === 'string',
  );
}
