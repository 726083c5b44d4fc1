/**
 * One webhook endpoint's page: its status (enable, disable, rotate the signing secret: the new one
 * is shown once), a test send, its settings, a replay of past events, its deliveries log and delete.
 */
import type { WebhookEndpoint, WebhookEndpointWithSecret } from '@storefront/client';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  useDeleteWebhookEndpoint,
  useReplayWebhooks,
  useRotateWebhookSecret,
  useSendWebhookTest,
  useUpdateWebhookEndpoint,
  useWebhookEndpoint,
} from '../../data/webhooks.ts';
import {
  ConfirmButton,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  SecretOnce,
  SelectField,
  StatusBadge,
  TextField,
} from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { isStatus, messageAt } from '../../ui/problems.ts';
import { FocusOnShow, localInputToIso, ScreenError, toLocalInput } from '../integrations-parts.tsx';
import { DeliveriesLog } from './deliveries.tsx';
import {
  describeEvents,
  EndpointFields,
  endpointStatus,
  EVENT_HELP,
  EVENT_TYPES,
  validateEndpoint,
  type EndpointFormValues,
  type EventName,
  type EventType,
} from './events.tsx';

function EditEndpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [values, setValues] = useState<EndpointFormValues>({
    url: endpoint.url,
    description: endpoint.description ?? '',
    events: endpoint.events as EventName[],
  });
  const [submitted, setSubmitted] = useState(false);
  const [saved, setSaved] = useState(false);
  const update = useUpdateWebhookEndpoint(endpoint.id, { onSuccess: () => setSaved(true) });
  const errors = validateEndpoint(values);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setSaved(false);
    if (errors.url || errors.events) return;
    update.mutate({
      url: values.url.trim(),
      events: values.events,
      description: values.description.trim() || null,
    });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="edit-endpoint-title">
      <h2 id="edit-endpoint-title">Settings</h2>
      <EndpointFields
        values={values}
        onChange={(next) => {
          setValues(next);
          setSaved(false);
        }}
        errors={submitted ? errors : null}
        serverError={update.error}
      />
      <ErrorBanner error={update.error} />
      {saved ? <Notice tone="success">Endpoint saved.</Notice> : null}
      <button type="submit" className="primary" disabled={update.isPending}>
        {update.isPending ? 'Saving…' : 'Save endpoint'}
      </button>
    </form>
  );
}

function TestSend({ endpoint }: { endpoint: WebhookEndpoint }) {
  const subscribed = endpoint.events.includes('*')
    ? [...EVENT_TYPES]
    : EVENT_TYPES.filter((type) => endpoint.events.includes(type));
  const [event, setEvent] = useState<EventType>(subscribed[0] ?? 'product.updated');
  // The test is in the deliveries log next.
  const send = useSendWebhookTest(endpoint.id);
  const result = send.data;
  return (
    <section className="panel" aria-labelledby="test-title">
      <h2 id="test-title">Send a test</h2>
      <p className="muted">
        Sends one signed event of that type now, with sample data and <code>{'"test": true'}</code> in the
        envelope, and shows what your endpoint answered. It is listed below as a test, and not retried.
      </p>
      <div className="inline-form">
        <SelectField
          label="Event type"
          name="test-event"
          value={event}
          onChange={(change) => setEvent(change.target.value as EventType)}
          options={(subscribed.length > 0 ? subscribed : [...EVENT_TYPES]).map((type) => ({
            value: type,
            label: `${type} (${EVENT_HELP[type]})`,
          }))}
        />
        <button
          type="button"
          className="primary"
          onClick={() => send.mutate(event)}
          disabled={send.isPending}
        >
          {send.isPending ? 'Sending…' : 'Send test'}
        </button>
      </div>
      <ErrorBanner error={send.error} />
      {result && !send.isPending ? (
        <FocusOnShow key={result.eventId}>
          <div className={`result ${result.ok ? 'ok' : 'bad'}`} role="status">
            <p>
              <strong>
                {result.ok
                  ? `Delivered: your endpoint answered HTTP ${result.statusCode ?? ''}`
                  : result.statusCode !== null
                    ? `Not accepted: your endpoint answered HTTP ${result.statusCode}`
                    : 'No answer from your endpoint'}
              </strong>{' '}
              in {result.durationMs} ms.
            </p>
            {result.error ? <p className="excerpt">{result.error}</p> : null}
            <p className="muted">
              Event <code>{result.event}</code>, id <code>{result.eventId}</code>
            </p>
          </div>
        </FocusOnShow>
      ) : null}
    </section>
  );
}

function Replay({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - 24 * 60 * 60 * 1000)));
  const [until, setUntil] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const replay = useReplayWebhooks(endpoint.id);
  const sinceIso = localInputToIso(since);
  const untilIso = localInputToIso(until);
  const sinceError = sinceIso ? undefined : 'Choose when the replay starts.';
  const untilError =
    until && untilIso && sinceIso && untilIso <= sinceIso ? 'Must be after “From”.' : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!sinceIso || untilError) return;
    replay.mutate({ since: sinceIso, ...(untilIso ? { until: untilIso } : {}) });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="replay-title">
      <h2 id="replay-title">Replay events</h2>
      <p className="muted">
        After an outage, send again every event of this endpoint’s types since a time, with the same event ids
        (receivers can ignore the ones they already have). Events older than the retention period (30 days by
        default) are gone.
      </p>
      <div className="grid-2">
        <TextField
          label="From"
          name="replay-since"
          type="datetime-local"
          value={since}
          onChange={(event) => setSince(event.target.value)}
          required
          error={(submitted ? sinceError : undefined) ?? messageAt(replay.error, '/since')}
        />
        <TextField
          label="Until (optional)"
          name="replay-until"
          type="datetime-local"
          value={until}
          onChange={(event) => setUntil(event.target.value)}
          error={untilError ?? messageAt(replay.error, '/until')}
        />
      </div>
      <ErrorBanner error={replay.error} />
      {replay.data ? (
        <Notice tone="success">
          {replay.data.replayed === 0
            ? 'No events in that time: nothing was queued.'
            : `${replay.data.replayed} ${replay.data.replayed === 1 ? 'delivery' : 'deliveries'} queued. They appear in the log below.`}
        </Notice>
      ) : null}
      <button type="submit" disabled={replay.isPending || !endpoint.enabled}>
        {replay.isPending ? 'Queuing…' : 'Replay events'}
      </button>
      {endpoint.enabled ? null : <p className="hint">Enable the endpoint to replay events.</p>}
    </form>
  );
}

export function WebhookDetail() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const [secret, setSecret] = useState<WebhookEndpointWithSecret | null>(null);
  const endpoint = useWebhookEndpoint(id);
  const toggle = useUpdateWebhookEndpoint(id);
  const rotate = useRotateWebhookSecret(id, { onSuccess: setSecret });
  const remove = useDeleteWebhookEndpoint(id, {
    onDone: () =>
      navigate('/webhooks', { state: { notice: `The endpoint ${endpoint.data?.url ?? ''} is deleted.` } }),
  });

  if (endpoint.isPending) {
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        <Loading label="Loading the endpoint…" />
      </>
    );
  }
  if (endpoint.isError) {
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        {isStatus(endpoint.error, 404) ? (
          <Empty>
            <p>
              This endpoint does not exist (it may have been deleted).{' '}
              <Link to="/webhooks">Back to webhooks</Link>
            </p>
          </Empty>
        ) : (
          <ScreenError
            error={endpoint.error}
            allowed="owners and admins"
            what="manage webhooks"
            onRetry={() => void endpoint.refetch()}
          />
        )}
      </>
    );
  }

  const data = endpoint.data;
  const state = endpointStatus(data);
  return (
    <>
      <PageHeader title="Webhook endpoint">
        <p className="break">
          <Link to="/webhooks">Webhooks</Link> › <code>{data.url}</code> <StatusBadge status={state.status} />
        </p>
      </PageHeader>

      {secret ? (
        <FocusOnShow>
          <SecretOnce label="New signing secret" value={secret.secret} onDone={() => setSecret(null)} />
        </FocusOnShow>
      ) : null}

      <section className="panel" aria-labelledby="status-title">
        <h2 id="status-title">Status</h2>
        <dl className="def-list">
          <dt>Deliveries</dt>
          <dd>{data.enabled ? 'On: events are sent as they happen.' : `Off. ${state.why ?? ''}`}</dd>
          <dt>Events</dt>
          <dd>{describeEvents(data.events)}</dd>
          <dt>Created</dt>
          <dd>{formatDateTime(data.createdAt)}</dd>
          <dt>Signing secret</dt>
          <dd>
            Shown only when created or rotated.
            {data.previousSecretExpiresAt
              ? ` The previous secret also signs until ${formatDateTime(data.previousSecretExpiresAt)}.`
              : ''}
          </dd>
        </dl>
        <ErrorBanner error={toggle.error ?? rotate.error} />
        <div className="actions">
          {data.enabled ? (
            <button
              type="button"
              onClick={() => toggle.mutate({ enabled: false })}
              disabled={toggle.isPending}
            >
              Disable endpoint
            </button>
          ) : (
            <button
              type="button"
              className="primary"
              onClick={() => toggle.mutate({ enabled: true })}
              disabled={toggle.isPending}
            >
              Enable endpoint
            </button>
          )}
          <ConfirmButton
            danger={false}
            title="Rotate the signing secret?"
            body={
              <p>
                A new secret is issued and shown once. For 24 hours the previous secret keeps signing too (a
                second signature header), so you have time to update your receiver.
              </p>
            }
            confirmLabel="Rotate secret"
            onConfirm={() => rotate.mutate()}
            disabled={rotate.isPending}
          >
            Rotate secret
          </ConfirmButton>
        </div>
      </section>

      <TestSend endpoint={data} />
      <EditEndpoint key={data.id} endpoint={data} />
      <Replay endpoint={data} />
      <DeliveriesLog title="Deliveries" endpointId={data.id} />

      <section className="panel danger-zone" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete endpoint</h2>
        <p className="muted">Stops all deliveries to this URL and removes its delivery log.</p>
        <ErrorBanner error={remove.error} />
        <ConfirmButton
          title="Delete this endpoint?"
          body={
            <p>
              <code className="break">{data.url}</code> gets no more events and its deliveries are removed.
              This cannot be undone.
            </p>
          }
          confirmLabel="Delete endpoint"
          onConfirm={() => remove.mutate()}
          disabled={remove.isPending}
        >
          Delete endpoint
        </ConfirmButton>
      </section>
    </>
  );
}
