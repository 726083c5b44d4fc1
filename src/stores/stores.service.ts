import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { isCurrency, isEmail, isSlug } from '../lib/validate.ts';
import {
  deleteStoreRow,
  findStoreById,
  findStoreBySlug,
  insertStore,
  updateStore,
} from './stores.repository.ts';
import type { StoreSettings, StoreSettingsPatch, StorefrontStore } from './stores.schemas.ts';
import type { StoreRow } from './stores.tables.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

/**
 * Stores: the tenants. This feature is the only reader and writer of the `stores` table; every
 * other feature asks it through these functions (`deps.db` may be a transaction).
 */
export type StoresDeps = Pick<ServiceDeps, 'db' | 'clock'>;

/** A store as the rest of the service sees it. */
export interface Store {
  id: string;
  name: string;
  slug: string;
  currency: string;
  replyToEmail: string | null;
  /** Decision `checkout-with-shipping`: a checkout with a line that requires shipping must give an address and a method. */
  requireShippingAddress: boolean;
  /** Decision `prices-include-tax`: prices are entered and charged gross, the tax a part of them. */
  pricesIncludeTax: boolean;
}

function toStore(row: StoreRow): Store {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    currency: row.currency.trim(),
    replyToEmail: row.reply_to_email,
    requireShippingAddress: row.require_shipping_address,
    pricesIncludeTax: row.prices_include_tax,
  };
}

function toSettings(row: StoreRow): StoreSettings {
  return {
    ...toStore(row),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const gone = () => notFound('The store no longer exists.');

export async function getStore(deps: Pick<StoresDeps, 'db'>, storeId: string): Promise<Store> {
  const row = await findStoreById(deps.db, storeId);
  if (!row) throw gone();
  return toStore(row);
}

/** Currencies by store id. A store's currency never changes, so every process may keep it. */
const currencies = new Map<string, string>();
const MAX_CACHED_CURRENCIES = 10_000;

/**
 * The store's currency (every price of the store is in it). It never changes, so it is read once
 * per process and store (carts and checkout ask for it on every request).
 */
export async function storeCurrency(deps: Pick<StoresDeps, 'db'>, storeId: string): Promise<string> {
  const cached = currencies.get(storeId);
  if (cached !== undefined) return cached;
  const { currency } = await getStore(deps, storeId);
  if (currencies.size >= MAX_CACHED_CURRENCIES) currencies.clear();
  currencies.set(storeId, currency);
  return currency;
}

/** The store, or null when there is none with that id (callers that may meet a deleted store). */
export async function findStore(deps: Pick<StoresDeps, 'db'>, storeId: string): Promise<Store | null> {
  const row = await findStoreById(deps.db, storeId);
  return row ? toStore(row) : null;
}

/** Stores read in the last second, by id, with when they were read (recentStore). */
const recent = new Map<string, { store: Store; readAt: number }>();
const RECENT_STORE_MS = 1000;
const MAX_RECENT_STORES = 1000;

/**
 * The store as read at most a second ago, or null when there was none: for hot paths that need the
 * store's name on every call and can live with a rename showing up within a second (a payment
 * confirmation's mail, on every paid order), as the read cache's bound already is for buyers.
 */
export async function recentStore(deps: Pick<StoresDeps, 'db'>, storeId: string): Promise<Store | null> {
  const now = performance.now();
  const hit = recent.get(storeId);
  if (hit && now - hit.readAt < RECENT_STORE_MS) return hit.store;
  const store = await findStore(deps, storeId);
  if (!store) return null;
  if (recent.size >= MAX_RECENT_STORES) recent.clear();
  recent.set(storeId, { store, readAt: now });
  return store;
}

/**
 * Whether the store's prices include tax (decision `prices-include-tax`), as read at most a second
 * ago: every cart read prices with it, and a change shows in every process within that second.
 */
export async function pricesIncludeTax(deps: Pick<StoresDeps, 'db'>, storeId: string): Promise<boolean> {
  return (await recentStore(deps, storeId))?.pricesIncludeTax ?? false;
}

export async function findStoreWithSlug(deps: Pick<StoresDeps, 'db'>, slug: string): Promise<Store | null> {
  const row = await findStoreBySlug(deps.db, slug.trim().toLowerCase());
  return row ? toStore(row) : null;
}

export async function storefrontStore(
  deps: Pick<StoresDeps, 'db'>,
  storeId: string,
): Promise<StorefrontStore> {
  const { name, slug, currency } = await getStore(deps, storeId);
  return { name, slug, currency };
}

export async function storeSettings(deps: Pick<StoresDeps, 'db'>, storeId: string): Promise<StoreSettings> {
  const row = await findStoreById(deps.db, storeId);
  if (!row) throw gone();
  return toSettings(row);
}

/** Changes the name, the reply-to address or the checkout's rules; slug and currency never change. */
export async function changeStoreSettings(
  deps: StoresDeps,
  storeId: string,
  patch: StoreSettingsPatch,
): Promise<StoreSettings> {
  const row = await updateStore(deps.db, storeId, {
    updated_at: deps.clock.now(),
    ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
    ...(patch.replyToEmail !== undefined ? { reply_to_email: patch.replyToEmail.trim().toLowerCase() } : {}),
    ...(patch.pricesIncludeTax !== undefined ? { prices_include_tax: patch.pricesIncludeTax } : {}),
    ...(patch.requireShippingAddress !== undefined
      ? { require_shipping_address: patch.requireShippingAddress }
      : {}),
  });
  if (!row) throw gone();
  // This process's checkouts see the change at once (others within recentStore's second).
  recent.delete(storeId);
  return toSettings(row);
}

/** Decision `markets`: the default market's name, kept on its store too (an archive carries it there). */
export async function setDefaultMarketName(
  deps: Pick<StoresDeps, 'db'>,
  storeId: string,
  name: string,
): Promise<void> {
  await updateStore(deps.db, storeId, { default_market_name: name });
}

export interface NewStore {
  name: string;
  slug: string;
  currency: string;
  /** The first reply-to address (the owner's). */
  replyToEmail: string;
}

const slugTaken = (slug: string) =>
  new AppError('slug_unavailable', 409, `The store slug "${slug}" is already taken.`);

/** Validates and inserts a store (in the caller's transaction): 400 for bad input, 409 for a taken slug. */
export async function insertNewStore(deps: StoresDeps, input: NewStore): Promise<Store> {
  const name = input.name.trim();
  const slug = input.slug.trim().toLowerCase();
  const currency = input.currency.trim().toUpperCase();
  const replyToEmail = input.replyToEmail.trim().toLowerCase();
  const errors: FieldError[] = [];
  if (name.length < 1 || name.length > 200)
    errors.push({ pointer: '/name', detail: 'must be 1 to 200 characters' });
  if (!isSlug(slug))
    errors.push({ pointer: '/slug', detail: 'must be lower-case letters, digits and hyphens' });
  if (!isCurrency(currency))
    errors.push({ pointer: '/currency', detail: 'must be an ISO 4217 code such as USD' });
  if (!isEmail(replyToEmail)) errors.push({ pointer: '/ownerEmail', detail: 'must be an email address' });
  if (errors.length > 0) throw validationFailed('The store could not be created.', errors);
  if (await findStoreBySlug(deps.db, slug)) throw slugTaken(slug);
  const row = await insertStore(deps.db, { name, slug, currency, replyToEmail, now: deps.clock.now() });
  if (!row) throw slugTaken(slug);
  return toStore(row);
}

/** Deletes a store with everything it owns (every tenant row cascades). */
export async function deleteStore(deps: Pick<StoresDeps, 'db'>, storeId: string): Promise<void> {
  await deleteStoreRow(deps.db, storeId);
  currencies.delete(storeId);
}
