/**
 * Webhooks: the endpoints (add one: its signing secret is shown once) and the recent deliveries of
 * them all (deliveries.tsx).
 */
import type { WebhookEndpointWithSecret } from '@storefront/client';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { useCreateWebhookEndpoint, useWebhookEndpoints } from '../../data/webhooks.ts';
import {
  ErrorBanner,
  Notice,
  PageHeader,
  SecretOnce,
  StatusBadge,
  SubmitCancel,
  useCursorPager,
} from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { isStatus } from '../../ui/problems.ts';
import { PagedTable } from '../../ui/queries.tsx';
import { FocusOnShow, focusSoon, roleError } from '../integrations-parts.tsx';
import { DeliveriesLog } from './deliveries.tsx';
import {
  describeEvents,
  EndpointFields,
  endpointStatus,
  validateEndpoint,
  type EndpointFormValues,
} from './events.tsx';

function CreateEndpoint({
  onCreated,
  onCancel,
}: {
  onCreated: (endpoint: WebhookEndpointWithSecret) => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<EndpointFormValues>({ url: '', description: '', events: [] });
  const [submitted, setSubmitted] = useState(false);
  const create = useCreateWebhookEndpoint({ onSuccess: onCreated });
  const errors = validateEndpoint(values);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (errors.url || errors.events) return;
    create.mutate({
      url: values.url.trim(),
      events: values.events,
      ...(values.description.trim() ? { description: values.description.trim() } : {}),
    });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="create-endpoint-title">
      <h2 id="create-endpoint-title">Add a webhook endpoint</h2>
      <EndpointFields
        values={values}
        onChange={setValues}
        errors={submitted ? errors : null}
        serverError={create.error}
        autoFocus
      />
      <ErrorBanner error={create.error} />
      <SubmitCancel label="Add endpoint" busyLabel="Adding…" busy={create.isPending} onCancel={onCancel} />
    </form>
  );
}

export function Webhooks() {
  const location = useLocation();
  const pager = useCursorPager();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<WebhookEndpointWithSecret | null>(null);
  const notice = (location.state as { notice?: string } | null)?.notice;
  const endpoints = useWebhookEndpoints(pager.cursor);
  const urls = new Map(endpoints.data?.items.map((endpoint) => [endpoint.id, endpoint.url]));

  return (
    <>
      <PageHeader
        title="Webhooks"
        actions={
          creating ? null : (
            <button
              type="button"
              id="add-endpoint-button"
              className="primary"
              onClick={() => setCreating(true)}
            >
              Add endpoint
            </button>
          )
        }
      >
        <p className="muted">
          Your systems get a signed POST when orders, products, stock or content change. Failed deliveries are
          retried for about three days.
        </p>
      </PageHeader>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      {created ? (
        <FocusOnShow>
          <SecretOnce
            label={`Signing secret of ${created.url}`}
            value={created.secret}
            onDone={() => setCreated(null)}
          />
          <p>
            Verify the <code>x-webhook-signature</code> header with it (HMAC-SHA-256 of the raw body).{' '}
            <Link to={`/webhooks/${created.id}`}>Open the endpoint</Link> to send a test.
          </p>
        </FocusOnShow>
      ) : null}
      {creating ? (
        <CreateEndpoint
          onCreated={(endpoint) => {
            setCreated(endpoint);
            setCreating(false);
          }}
          onCancel={() => {
            setCreating(false);
            focusSoon('#add-endpoint-button');
          }}
        />
      ) : null}

      <h2>Endpoints</h2>
      <PagedTable
        query={endpoints}
        pager={pager}
        loading="Loading endpoints…"
        error={roleError('owners and admins', 'manage webhooks')}
        empty={<p>No endpoints yet. Add one to receive events.</p>}
        wrap="contained"
        caption="Webhook endpoints"
        columns={['URL', 'Events', 'Status', 'Created']}
      >
        {(endpoint) => (
          <tr key={endpoint.id}>
            <td className="break">
              <Link to={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
              {endpoint.description ? (
                <>
                  <br />
                  <span className="muted">{endpoint.description}</span>
                </>
              ) : null}
            </td>
            <td>{describeEvents(endpoint.events)}</td>
            <td>
              <StatusBadge status={endpointStatus(endpoint).status} />
            </td>
            <td>{formatDateTime(endpoint.createdAt)}</td>
          </tr>
        )}
      </PagedTable>
      {endpoints.isError && isStatus(endpoints.error, 403) ? null : (
        <DeliveriesLog title="Recent deliveries" endpointUrls={urls} />
      )}
    </>
  );
}
