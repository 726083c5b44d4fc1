/**
 * An endpoint's fields, shared by the create and edit forms: the URL (https, checked as typed), the
 * description and the events (every type the API documents, or all with `*`), and how an
 * endpoint's events and state read in words.
 */
import type { RequestBody, WebhookEndpoint } from '@storefront/client';
import { TextField } from '../../ui/components.tsx';
import { messageAt } from '../../ui/problems.ts';

export type EventName = RequestBody<'adminCreateWebhookEndpoint'>['events'][number];
export type EventType = Exclude<EventName, '*'>;

/** Every event type, in the order the API documents them (checked against the API's union below). */
export const EVENT_TYPES = [
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
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'promotion.created',
  'promotion.updated',
  'promotion.deleted',
  'gift_card.issued',
  'gift_card.updated',
  'import.completed',
  'draft_order.created',
  'draft_order.updated',
  'draft_order.completed',
] as const satisfies readonly EventType[];
// A new event type in the API fails the type check here until it is listed above.
type Missing = Exclude<EventType, (typeof EVENT_TYPES)[number]>;
const everyEventListed: [Missing] extends [never] ? true : Missing = true;
void everyEventListed;

export const EVENT_HELP: Record<EventType, string> = {
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
  'customer.created': 'a customer checked out for the first time or created an account (the id only)',
  'customer.updated': 'a customer changed their profile, addresses or consent (the id and what changed)',
  'customer.deleted': 'a customer was erased (the id only)',
  'promotion.created': 'a promotion or discount code was created',
  'promotion.updated': 'a promotion changed',
  'promotion.deleted': 'a promotion or discount code was deleted',
  'gift_card.issued':
    'a gift card was issued by staff or sold by an order (its last 4 characters and balance, never the code)',
  'gift_card.updated': 'a gift card changed or its balance moved',
  'import.completed': 'a CSV import completed (its counts, never a row)',
  'draft_order.created': 'staff created a draft order',
  'draft_order.updated': 'a draft order changed, was invoiced or was deleted',
  'draft_order.completed': 'a draft order was completed with a payment taken outside',
};

export function describeEvents(events: readonly string[]): string {
  return events.includes('*') ? 'All events' : events.join(', ');
}

export function endpointStatus(endpoint: WebhookEndpoint): { status: string; why: string | null } {
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

export interface EndpointFormValues {
  url: string;
  description: string;
  events: EventName[];
}

export function validateEndpoint(values: EndpointFormValues) {
  return {
    url: urlProblem(values.url),
    events: values.events.length === 0 ? 'Choose at least one event, or all events.' : undefined,
  };
}

export function EndpointFields({
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
