/**
 * The deliveries log, of one endpoint or of all: each delivery's event, status, attempts, last
 * response and next attempt, filtered by status, followed while something is pending, with retry.
 */
import type { WebhookDelivery } from '@storefront/client';
import { useState } from 'react';
import { Link } from 'react-router';
import { useRetryDelivery, useWebhookDeliveries } from '../../data/webhooks.ts';
import {
  ACTIONS,
  ErrorBanner,
  Notice,
  SelectField,
  StatusBadge,
  useCursorPager,
} from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { PagedTable } from '../../ui/queries.tsx';
import { roleError } from '../integrations-parts.tsx';

function lastResponse(delivery: WebhookDelivery) {
  if (delivery.lastStatusCode === null && delivery.lastError === null) {
    return <span className="muted">{delivery.attempts === 0 ? 'Not sent yet' : '—'}</span>;
  }
  // lastError carries "HTTP <code>: <body excerpt>" or why no answer came.
  const excerpt = delivery.lastError?.replace(/^HTTP \d{3}:?\s*/, '') ?? '';
  return (
    <>
      {delivery.lastStatusCode !== null ? (
        <strong>HTTP {delivery.lastStatusCode}</strong>
      ) : (
        <strong>No answer</strong>
      )}
      {excerpt ? <span className="excerpt">{excerpt}</span> : null}
    </>
  );
}

function retryLabel(delivery: WebhookDelivery): string {
  return delivery.status === 'pending' ? 'Send now' : delivery.status === 'failed' ? 'Retry' : 'Send again';
}

/** The deliveries log (of one endpoint, or of all), filtered by status, with retry. */
export function DeliveriesLog({
  title,
  endpointId,
  endpointUrls,
}: {
  title: string;
  endpointId?: string;
  endpointUrls?: ReadonlyMap<string, string>;
}) {
  const pager = useCursorPager();
  const [status, setStatus] = useState<'' | WebhookDelivery['status']>('');
  const [retried, setRetried] = useState<string | null>(null);
  // While something is on its way, the log follows it.
  const deliveries = useWebhookDeliveries({
    limit: 25,
    ...(endpointId ? { endpointId } : {}),
    ...(status ? { status } : {}),
    ...(pager.cursor ? { cursor: pager.cursor } : {}),
  });
  const retry = useRetryDelivery({
    onDone: (_delivery, queued) => setRetried(`The ${queued.event} delivery is queued to be sent again now.`),
  });
  const headingId = endpointId ? 'deliveries-title' : 'recent-deliveries-title';

  return (
    <section className="log-section" aria-labelledby={headingId}>
      <div className="section-title-row">
        <h2 id={headingId}>{title}</h2>
      </div>
      <div className="filters">
        <SelectField
          label="Status"
          name="delivery-status"
          value={status}
          onChange={(event) => {
            setStatus(event.target.value as typeof status);
            pager.reset();
          }}
          options={[
            { value: '', label: 'All' },
            { value: 'pending', label: 'Pending (retrying)' },
            { value: 'delivered', label: 'Delivered' },
            { value: 'failed', label: 'Failed (gave up)' },
          ]}
        />
        <button type="button" onClick={() => void deliveries.refetch()} disabled={deliveries.isFetching}>
          {deliveries.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      {retried ? <Notice tone="success">{retried}</Notice> : null}
      <ErrorBanner error={retry.error} />
      <PagedTable
        query={deliveries}
        pager={pager}
        loading="Loading deliveries…"
        error={roleError('owners and admins', 'see webhook deliveries')}
        empty={
          <p>
            {status
              ? `No ${status} deliveries.`
              : 'No deliveries yet. They appear here as events happen in your store.'}
          </p>
        }
        wrap="contained"
        className="deliveries"
        caption={title}
        columns={[
          'Event',
          endpointId ? null : 'Endpoint',
          'Status',
          { label: 'Attempts', num: true },
          'Last response',
          'Last attempt',
          'Next attempt',
          ACTIONS,
        ]}
      >
        {(delivery) => (
          <tr key={delivery.id} data-delivery-id={delivery.id}>
            <td>
              <code>{delivery.event}</code>
              {delivery.kind !== 'event' ? <span className="muted"> ({delivery.kind})</span> : null}
              <br />
              <span className="muted">{formatDateTime(delivery.createdAt)}</span>
            </td>
            {endpointId ? null : (
              <td className="break">
                <Link to={`/webhooks/${delivery.endpointId}`}>
                  {endpointUrls?.get(delivery.endpointId) ?? 'Endpoint'}
                </Link>
              </td>
            )}
            <td>
              <StatusBadge status={delivery.status} />
            </td>
            <td className="num">{delivery.attempts}</td>
            <td>{lastResponse(delivery)}</td>
            <td>{formatDateTime(delivery.lastAttemptAt)}</td>
            <td>{delivery.status === 'pending' ? formatDateTime(delivery.nextAttemptAt) : '—'}</td>
            <td>
              {delivery.kind === 'test' ? null : (
                <button
                  type="button"
                  onClick={() => {
                    setRetried(null);
                    retry.mutate(delivery);
                  }}
                  disabled={retry.isPending}
                  aria-label={`${retryLabel(delivery)} (${delivery.event}, ${formatDateTime(delivery.createdAt)})`}
                >
                  {retryLabel(delivery)}
                </button>
              )}
            </td>
          </tr>
        )}
      </PagedTable>
    </section>
  );
}
