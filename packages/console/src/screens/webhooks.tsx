/**
 * Webhooks: endpoints (the signing secret shown once at creation and after a rotation), an
 * endpoint's page (edit, enable/disable, rotate, test send, replay, delete) and the deliveries log
 * with attempts, status, the last response and retry.
 */
import type {
  RequestBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { useAdmin } from '../session.tsx';
import {
  ACTIONS,
  ConfirmButton,
  DataTable,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  Pager,
  SecretOnce,
  SelectField,
  StatusBadge,
  TextField,
  useCursorPager,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { isStatus, messageAt } from '../ui/problems.ts';
import { QueryView, useChangeAndRefresh } from '../ui/queries.tsx';
import {
  FocusOnShow,
  focusSoon,
  localInputToIso,
  roleError,
  ScreenError,
  toLocalInput,
} from './integrations-parts.tsx';

type EventName = RequestBody<'adminCreateWebhookEndpoint'>['events'][number];
type EventType = Exclude<EventName, '*'>;

/** Every event type, in the order the API documents them (checked against the API's union below). */
const EVENT_TYPES = [
  'order.created',
  'order.paid',
  'order.refunded',
  'inventory.updated',
  'product.created',
  'product.updated',
  'product.deleted',
  'content.updated',
  'theme.published',
  'app.installed',
  'fulfillment.created',
  'fulfillment.updated',
  'order.cancelled',
  'return.created',
] as const satisfies readonly EventType[];
// A new event type in the API fails the type check here until it is listed above.
type Missing = Exclude<EventType, (typeof EVENT_TYPES)[number]>;
const everyEventListed: [Missing] extends [never] ? true : Missing = true;
void everyEventListed;

const EVENT_HELP: Record<EventType, string> = {
  'order.created': 'a checkout created an order',
  'order.paid': 'an order was paid',
  'order.refunded': 'a refund settled',
  'inventory.updated': 'stock changed',
  'product.created': 'a product was created',
  'product.updated': 'a product changed',
  'product.deleted': 'a product was deleted',
  'content.updated': 'a region, menu or page was published',
  'theme.published': 'a theme went live',
  'app.installed': 'an app was installed',
  'fulfillment.created': 'units of an order shipped',
  'fulfillment.updated': 'a shipment’s tracking changed, it was delivered or cancelled',
  'order.cancelled': 'an order was cancelled',
  'return.created': 'units of an order came back',
};

const ENDPOINTS = ['webhook-endpoints'] as const;
const DELIVERIES = ['webhook-deliveries'] as const;

function describeEvents(events: readonly string[]): string {
  return events.includes('*') ? 'All events' : events.join(', ');
}

function endpointStatus(endpoint: WebhookEndpoint): { status: string; why: string | null } {
  if (endpoint.enabled) return { status: 'active', why: null };
  const why =
    endpoint.disabledReason === 'gone'
      ? 'The receiver answered 410 Gone, so deliveries stopped.'
      : endpoint.disabledReason === 'secret_unreadable'
        ? 'The signing secret cannot be read (the server’s SECRET_KEY changed): deliveries wait until an operator restores the key and the endpoint is enabled again.'
        : 'Disabled by staff.';
  return { status: 'disabled', why };
}

function urlProblem(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return 'Enter the URL that receives the events, like https://example.com/webhooks.';
  try {
    const url = new URL(trimmed);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The URL must start with https://.';
  } catch {
    return 'Enter a full URL, like https://example.com/webhooks.';
  }
  return undefined;
}

function EventsField({
  value,
  onChange,
  error,
}: {
  value: readonly EventName[];
  onChange: (events: EventName[]) => void;
  error?: string | undefined;
}) {
  const all = value.includes('*');
  const errorId = 'events-error';
  return (
    <fieldset aria-describedby={error ? errorId : undefined} aria-invalid={error ? true : undefined}>
      <legend>Events</legend>
      <label className="checkbox">
        <input
          type="checkbox"
          name="event-all"
          checked={all}
          onChange={(event) => onChange(event.target.checked ? ['*'] : [])}
        />
        <span>
          All events (<code>*</code>), including types added later
        </span>
      </label>
      <div className="checkbox-grid">
        {EVENT_TYPES.map((type) => (
          <label className="checkbox" key={type}>
            <input
              type="checkbox"
              name="event"
              value={type}
              disabled={all}
              checked={all || value.includes(type)}
              onChange={(event) =>
                onChange(
                  event.target.checked
                    ? [...value.filter((name) => name !== '*'), type]
                    : value.filter((name) => name !== type),
                )
              }
            />
            <code>{type}</code>
          </label>
        ))}
      </div>
      {error ? (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

interface EndpointFormValues {
  url: string;
  description: string;
  events: EventName[];
}

function validateEndpoint(values: EndpointFormValues) {
  return {
    url: urlProblem(values.url),
    events: values.events.length === 0 ? 'Choose at least one event, or all events.' : undefined,
  };
}

function EndpointFields({
  values,
  onChange,
  errors,
  serverError,
  autoFocus = false,
}: {
  autoFocus?: boolean;
  values: EndpointFormValues;
  onChange: (values: EndpointFormValues) => void;
  errors: ReturnType<typeof validateEndpoint> | null;
  serverError: unknown;
}) {
  return (
    <>
      <TextField
        label="Endpoint URL"
        name="url"
        type="url"
        autoFocus={autoFocus}
        value={values.url}
        onChange={(event) => onChange({ ...values, url: event.target.value })}
        placeholder="https://example.com/webhooks"
        hint="https only. Private and internal network addresses are refused."
        spellCheck={false}
        autoCapitalize="off"
        required
        error={errors?.url ?? messageAt(serverError, '/url')}
      />
      <TextField
        label="Description (optional)"
        name="description"
        value={values.description}
        maxLength={500}
        onChange={(event) => onChange({ ...values, description: event.target.value })}
        error={messageAt(serverError, '/description')}
      />
      <EventsField
        value={values.events}
        onChange={(events) => onChange({ ...values, events })}
        error={errors?.events ?? messageAt(serverError, '/events')}
      />
    </>
  );
}

function CreateEndpoint({
  onCreated,
  onCancel,
}: {
  onCreated: (endpoint: WebhookEndpointWithSecret) => void;
  onCancel: () => void;
}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<EndpointFormValues>({ url: '', description: '', events: [] });
  const [submitted, setSubmitted] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      admin.webhookEndpoints.create({
        url: values.url.trim(),
        events: values.events,
        ...(values.description.trim() ? { description: values.description.trim() } : {}),
      }),
    onSuccess: (endpoint) => {
      void queryClient.invalidateQueries({ queryKey: ENDPOINTS });
      onCreated(endpoint);
    },
  });
  const errors = validateEndpoint(values);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (errors.url || errors.events) return;
    create.mutate();
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
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add endpoint'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function Webhooks() {
  const admin = useAdmin();
  const location = useLocation();
  const pager = useCursorPager();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<WebhookEndpointWithSecret | null>(null);
  const notice = (location.state as { notice?: string } | null)?.notice;
  const endpoints = useQuery({
    queryKey: [...ENDPOINTS, pager.cursor],
    queryFn: () =>
      admin.webhookEndpoints.list({ limit: 50, ...(pager.cursor ? { cursor: pager.cursor } : {}) }),
  });
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
      <QueryView
        query={endpoints}
        loading="Loading endpoints…"
        error={roleError('owners and admins', 'manage webhooks')}
        isEmpty={(data) => data.items.length === 0 && !pager.hasPrevious}
        empty={<p>No endpoints yet. Add one to receive events.</p>}
      >
        {(data) => (
          <>
            <DataTable
              wrap="contained"
              caption="Webhook endpoints"
              columns={['URL', 'Events', 'Status', 'Created']}
            >
              {data.items.map((endpoint) => (
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
              ))}
            </DataTable>
            <Pager pager={pager} nextCursor={data.nextCursor} />
          </>
        )}
      </QueryView>
      {endpoints.isError && isStatus(endpoints.error, 403) ? null : (
        <DeliveriesLog title="Recent deliveries" endpointUrls={urls} />
      )}
    </>
  );
}

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
function DeliveriesLog({
  title,
  endpointId,
  endpointUrls,
}: {
  title: string;
  endpointId?: string;
  endpointUrls?: ReadonlyMap<string, string>;
}) {
  const admin = useAdmin();
  const pager = useCursorPager();
  const [status, setStatus] = useState<'' | WebhookDelivery['status']>('');
  const [retried, setRetried] = useState<string | null>(null);
  const deliveries = useQuery({
    queryKey: [...DELIVERIES, endpointId ?? 'all', status, pager.cursor],
    queryFn: () =>
      admin.webhookDeliveries.list({
        limit: 25,
        ...(endpointId ? { endpointId } : {}),
        ...(status ? { status } : {}),
        ...(pager.cursor ? { cursor: pager.cursor } : {}),
      }),
    // While something is on its way, the log follows it.
    refetchInterval: (query) =>
      query.state.data?.items.some((delivery) => delivery.status === 'pending') ? 3000 : false,
  });
  const retry = useChangeAndRefresh({
    change: (delivery: WebhookDelivery) => admin.webhookDeliveries.retry(delivery.id),
    refresh: DELIVERIES,
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
      <QueryView
        query={deliveries}
        loading="Loading deliveries…"
        error={roleError('owners and admins', 'see webhook deliveries')}
        isEmpty={(data) => data.items.length === 0 && !pager.hasPrevious}
        empty={
          <p>
            {status
              ? `No ${status} deliveries.`
              : 'No deliveries yet. They appear here as events happen in your store.'}
          </p>
        }
      >
        {(data) => (
          <>
            <DataTable
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
              {data.items.map((delivery) => (
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
              ))}
            </DataTable>
            <Pager pager={pager} nextCursor={data.nextCursor} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function EditEndpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<EndpointFormValues>({
    url: endpoint.url,
    description: endpoint.description ?? '',
    events: endpoint.events as EventName[],
  });
  const [submitted, setSubmitted] = useState(false);
  const [saved, setSaved] = useState(false);
  const update = useMutation({
    mutationFn: () =>
      admin.webhookEndpoints.update(endpoint.id, {
        url: values.url.trim(),
        events: values.events,
        description: values.description.trim() || null,
      }),
    onSuccess: (next) => {
      queryClient.setQueryData(['webhook-endpoint', endpoint.id], next);
      void queryClient.invalidateQueries({ queryKey: ENDPOINTS });
      setSaved(true);
    },
  });
  const errors = validateEndpoint(values);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setSaved(false);
    if (errors.url || errors.events) return;
    update.mutate();
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
  const admin = useAdmin();
  const subscribed = endpoint.events.includes('*')
    ? [...EVENT_TYPES]
    : EVENT_TYPES.filter((type) => endpoint.events.includes(type));
  const [event, setEvent] = useState<EventType>(subscribed[0] ?? 'product.updated');
  const queryClient = useQueryClient();
  const send = useMutation({
    mutationFn: () => admin.webhookEndpoints.sendTest(endpoint.id, { event }),
    // The test is in the deliveries log now.
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: DELIVERIES }),
  });
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
        <button type="button" className="primary" onClick={() => send.mutate()} disabled={send.isPending}>
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
  const admin = useAdmin();
  const queryClient = useQueryClient();
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - 24 * 60 * 60 * 1000)));
  const [until, setUntil] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const replay = useMutation({
    mutationFn: (body: RequestBody<'adminReplayWebhooks'>) =>
      admin.webhookEndpoints.replay(endpoint.id, body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: DELIVERIES }),
  });
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
  const admin = useAdmin();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [secret, setSecret] = useState<WebhookEndpointWithSecret | null>(null);
  const endpoint = useQuery({
    queryKey: ['webhook-endpoint', id],
    queryFn: () => admin.webhookEndpoints.get(id),
    retry: (count, error) => !isStatus(error, 404) && !isStatus(error, 403) && count < 2,
  });
  const afterChange = (next: WebhookEndpoint) => {
    queryClient.setQueryData(['webhook-endpoint', id], next);
    void queryClient.invalidateQueries({ queryKey: ENDPOINTS });
  };
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => admin.webhookEndpoints.update(id, { enabled }),
    onSuccess: afterChange,
  });
  const rotate = useMutation({
    mutationFn: () => admin.webhookEndpoints.rotateSecret(id),
    onSuccess: (next) => {
      setSecret(next);
      afterChange(next);
    },
  });
  const remove = useChangeAndRefresh({
    change: () => admin.webhookEndpoints.delete(id),
    refresh: ENDPOINTS,
    forget: () => ['webhook-endpoint', id],
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
            <button type="button" onClick={() => toggle.mutate(false)} disabled={toggle.isPending}>
              Disable endpoint
            </button>
          ) : (
            <button
              type="button"
              className="primary"
              onClick={() => toggle.mutate(true)}
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
