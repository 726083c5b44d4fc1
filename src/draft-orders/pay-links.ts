import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Keyring } from '../lib/keyring.ts';

/**
 * A draft's pay link (decision `draft-order-pay-link`): `/pay/orders/<orderId>?token=<storeId>.<expires>.<mac>`,
 * an HMAC under the keyring's `pay-link` key over the store, the order and when the link expires (the
 * order's own expiry). Anyone holding it may pay that order and see its total; it opens nothing else,
 * and it stops working when the order is no longer pending or the link's time has passed.
 */

export const PAY_LINK_PATH = '/pay/orders';
const PURPOSE = 'pay-link';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function mac(keyring: Keyring, storeId: string, orderId: string, expires: number): string {
  return createHmac('sha256', keyring.key(PURPOSE))
    .update(`${storeId}:${orderId}:${expires}`)
    .digest('base64url')
    .slice(0, 32);
}

/** The link's token for an order that expires at `expiresAt`. */
export function payLinkToken(keyring: Keyring, storeId: string, orderId: string, expiresAt: Date): string {
  const expires = Math.ceil(expiresAt.getTime() / 1000);
  return `${storeId}.${expires}.${mac(keyring, storeId, orderId, expires)}`;
}

/** The path (and query) of an order's pay link on this service. */
export function payLinkPath(keyring: Keyring, storeId: string, orderId: string, expiresAt: Date): string {
  return `${PAY_LINK_PATH}/${orderId}?token=${payLinkToken(keyring, storeId, orderId, expiresAt)}`;
}

/** The store a token opens the order for; null when it is not this order's, forged, or past its time. */
export function verifyPayLink(keyring: Keyring, orderId: string, token: string, now: Date): string | null {
  const [storeId, expiresText, given, ...rest] = token.split('.');
  if (rest.length > 0 || !storeId || !expiresText || !given || !UUID.test(storeId)) return null;
  if (!/^[0-9]{1,12}$/.test(expiresText)) return null;
  const expires = Number(expiresText);
  const expected = Buffer.from(mac(keyring, storeId, orderId, expires));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return expires * 1000 > now.getTime() ? storeId : null;
}
