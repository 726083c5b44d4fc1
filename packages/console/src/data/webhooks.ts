/**
 * Webhooks on the Admin API: their query keys, the reads (endpoints, one endpoint, the deliveries
 * log) and the changes (create, change, enable or disable, rotate the secret, delete an endpoint;
 * send a test, replay, retry a delivery). A change of an endpoint refreshes the endpoints list; what
 * queues deliveries (a test, a replay, a retry) refreshes the deliveries log.
 */
import type {
  QueryParams,
  RequestBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { isStatus } from '../ui/problems.ts';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

export type EndpointBody = RequestBody<'adminCreateWebhookEndpoint'>;
export type DeliveryListQuery = QueryParams<'adminListWebhookDeliveries'>;

export const webhookKeys = {
  all: ['webhooks'] as const,
  endpoints: () => [...webhookKeys.all, 'endpoints'] as const,
  endpointList: (cursor: string | undefined) => [...webhookKeys.endpoints(), { cursor }] as const,
  endpoint: (id: string) => [...webhookKeys.all, 'endpoint', id] as const,
  deliveries: () => [...webhookKeys.all, 'deliveries'] as const,
  deliveryList: (query: DeliveryListQuery) => [...webhookKeys.deliveries(), query] as const,
};

export function useWebhookEndpoints(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: webhookKeys.endpointList(cursor),
    queryFn: () => admin.webhookEndpoints.list({ limit: 50, ...(cursor ? { cursor } : {}) }),
  });
}

/** One endpoint; a 404 or 403 is final (no retry). */
export function useWebhookEndpoint(id: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: webhookKeys.endpoint(id),
    queryFn: () => admin.webhookEndpoints.get(id),
    retry: (count, error) => !isStatus(error, 404) && !isStatus(error, 403) && count < 2,
  });
}

/** The deliveries log; while something is on its way, it is read again every three seconds. */
export function useWebhookDeliveries(query: DeliveryListQuery) {
  const admin = useAdmin();
  return useQuery({
    queryKey: webhookKeys.deliveryList(query),
    queryFn: () => admin.webhookDeliveries.list(query),
    refetchInterval: (current) =>
      current.state.data?.items.some((delivery) => delivery.status === 'pending') ? 3000 : false,
  });
}

/** Creates an endpoint; the answer has its signing secret, shown once. `onSuccess` runs at once. */
export function useCreateWebhookEndpoint(
  callbacks: ChangeCallbacks<WebhookEndpointWithSecret, EndpointBody> = {},
) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: EndpointBody) => admin.webhookEndpoints.create(body),
    onSuccess: (endpoint, body) => {
      void invalidate(queryClient, webhookKeys.endpoints());
      return callbacks.onSuccess?.(endpoint, body);
    },
  });
}

/** After a change of one endpoint: its cached copy is the answer, and the list is read again. */
function useRememberEndpoint() {
  const queryClient = useQueryClient();
  return (endpoint: WebhookEndpoint) => {
    queryClient.setQueryData(webhookKeys.endpoint(endpoint.id), endpoint);
    void invalidate(queryClient, webhookKeys.endpoints());
  };
}

/** Changes an endpoint's URL, events, description, or whether it is enabled. */
export function useUpdateWebhookEndpoint(
  id: string,
  callbacks: ChangeCallbacks<WebhookEndpoint, RequestBody<'adminUpdateWebhookEndpoint'>> = {},
) {
  const admin = useAdmin();
  const remember = useRememberEndpoint();
  return useMutation({
    mutationFn: (body: RequestBody<'adminUpdateWebhookEndpoint'>) => admin.webhookEndpoints.update(id, body),
    onSuccess: (endpoint, body) => {
      remember(endpoint);
      return callbacks.onSuccess?.(endpoint, body);
    },
  });
}

/** Issues a new signing secret (answered once; the previous one keeps signing for 24 hours). */
export function useRotateWebhookSecret(
  id: string,
  callbacks: ChangeCallbacks<WebhookEndpointWithSecret, void> = {},
) {
  const admin = useAdmin();
  const remember = useRememberEndpoint();
  return useMutation({
    mutationFn: () => admin.webhookEndpoints.rotateSecret(id),
    onSuccess: (endpoint) => {
      const shown = callbacks.onSuccess?.(endpoint);
      remember(endpoint);
      return shown;
    },
  });
}

/** Deletes an endpoint and its deliveries. */
export function useDeleteWebhookEndpoint(id: string, options: ListChangeOptions<void>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: () => admin.webhookEndpoints.delete(id),
    refresh: [webhookKeys.endpoints()],
    forget: () => webhookKeys.endpoint(id),
    ...options,
  });
}

/** Sends one signed test event now and answers what the endpoint said; the log shows it next. */
export function useSendWebhookTest(id: string) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (event: RequestBody<'adminSendTestWebhook'>['event']) =>
      admin.webhookEndpoints.sendTest(id, { event }),
    onSuccess: () => void invalidate(queryClient, webhookKeys.deliveries()),
  });
}

/** Queues again every event of the endpoint's types in a time range. */
export function useReplayWebhooks(id: string) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'adminReplayWebhooks'>) => admin.webhookEndpoints.replay(id, body),
    onSuccess: () => void invalidate(queryClient, webhookKeys.deliveries()),
  });
}

/** Sends a delivery again now (a failed one is retried, a pending one sent at once). */
export function useRetryDelivery(options: ListChangeOptions<WebhookDelivery, WebhookDelivery>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (delivery: WebhookDelivery) => admin.webhookDeliveries.retry(delivery.id),
    refresh: [webhookKeys.deliveries()],
    ...options,
  });
}
