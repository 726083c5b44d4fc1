/**
 * Webhooks: the endpoints (list.tsx: the signing secret shown once at creation), an endpoint's page
 * (detail.tsx: edit, enable/disable, rotate, test send, replay, delete; the secret shown once after
 * a rotation), the deliveries log with attempts, status, the last response and retry
 * (deliveries.tsx), and the fields and words they share (events.tsx). Their data is
 * data/webhooks.ts.
 */
export { Webhooks } from './list.tsx';
export { WebhookDetail } from './detail.tsx';
