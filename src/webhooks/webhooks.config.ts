import { boolean, duration, durationList, integer, type Env } from '../lib/env.ts';

/** Webhook delivery settings (decisions `webhook-endpoints` and `webhook-delivery`). */
export interface WebhookConfig {
  /** Delays between delivery attempts; after the last one a delivery is `failed`. */
  readonly retryScheduleMs: readonly number[];
  /** Per-attempt timeout. */
  readonly timeoutMs: number;
  /** Allow http:// endpoints on loopback addresses (development and tests only). */
  readonly allowHttp: boolean;
  /** Delivered deliveries and dispatched events older than this are purged. */
  readonly eventRetentionMs: number;
  /** Webhook requests one relay process keeps in flight at once. */
  readonly concurrency: number;
}

export function loadWebhookConfig(env: Env): WebhookConfig {
  return Object.freeze({
    retryScheduleMs: Object.freeze(
      durationList(env, 'WEBHOOK_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,14h,20h,24h'),
    ),
    timeoutMs: duration(env, 'WEBHOOK_TIMEOUT', '15s'),
    allowHttp: boolean(env, 'ALLOW_HTTP_WEBHOOKS', false),
    eventRetentionMs: duration(env, 'EVENT_RETENTION', '30d'),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 32, 1, 1000),
  });
}
