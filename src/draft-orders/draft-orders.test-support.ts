import assert from 'node:assert/strict';
import type { TestApp, TestStore } from '../test/harness.ts';

/** What the draft order tests share: the answers' shapes, a problem with its title, events and stock as stored. */

export interface Money {
  amount: number;
  currency: string;
}

export interface Draft {
  id: string;
  status: string;
  customerId: string;
  email: string;
  lines: { id: string; variantId: string | null; custom: boolean; quantity: number; unitPrice: Money }[];
  totals: { subtotal: Money; total: Money };
  note: string | null;
  orderId: string | null;
}

export interface Placed {
  draftOrder: Draft;
  order: { id: string; number: number; status: string; total: Money; expiresAt: string };
  payment: { provider: string; status: string; amount: Money };
  payUrl: string | null;
}

/** The problem+json body of an answer that must have `status` and `title`. */
export async function problem(
  response: Promise<{ statusCode: number; body: string }>,
  status: number,
  title: string,
): Promise<{ title: string; errors?: { pointer: string; detail: string }[] }> {
  const answer = await response;
  assert.equal(answer.statusCode, status, answer.body);
  const body = JSON.parse(answer.body) as { title: string; errors?: { pointer: string; detail: string }[] };
  assert.equal(body.title, title, answer.body);
  return body;
}

/** The events recorded about a resource, in the order recorded. */
export async function eventsOf(t: TestApp, shop: TestStore, resource: string) {
  const rows = await t.deps.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('store_id', '=', shop.store.id)
    .where('resource_key', '=', resource)
    .orderBy('seq')
    .execute();
  return rows.map((row) => ({ type: row.type, data: row.data }));
}

/** A variant's stock as stored. */
export function stock(t: TestApp, variantId: string) {
  return t.deps.db
    .selectFrom('variants')
    .select(['on_hand', 'reserved'])
    .where('id', '=', variantId)
    .executeTakeFirstOrThrow();
}
