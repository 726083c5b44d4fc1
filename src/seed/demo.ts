import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { createStorefrontKey } from '../keys/keys.service.ts';
import { handedOutKey, keepKeySealed } from '../keys/keys.sealed.ts';
import type { Keyring } from '../lib/keyring.ts';
import type { Clock } from '../lib/clock.ts';
import type { MediaStorage } from '../media/media.storage.ts';
import { createStore } from '../onboarding/onboarding.service.ts';
import { openStaffSession, type SessionLifetime } from '../staff/staff.service.ts';
import { deleteStore, findStoreWithSlug } from '../stores/stores.service.ts';
import { seedDemoCatalog } from './demo-catalog.ts';
import { seedDemoContent } from './demo-content.ts';
import { seedDemoShipping } from './demo-shipping.ts';
import { seedDemoTax } from './demo-tax.ts';

export const DEMO_SLUG = 'demo';
export const DEMO_OWNER_EMAIL = 'owner@demo.storefront.test';

export interface DemoCredentials {
  storeId: string;
  publishableKey: string;
  staffToken: string;
}

/**
 * Creates the demo store (catalog and content included) with a publishable key and an owner
 * session; null when it exists already. All or nothing: a failure removes the half-made store.
 */
export interface SeedDeps {
  db: Kysely<Database>;
  clock: Clock;
  sessions: SessionLifetime;
  /** The server's own base URL: its /docs "Try it" and its /shop call the API from that origin. */
  baseUrl?: string | undefined;
  /**
   * Seals the demo key so the reference shop and /docs can use it after a restart (decision
   * `shop-publishable-key`).
   */
  keyring: Keyring;
  /** Where the demo catalog's pictures are kept (the runtime's media storage). */
  media: MediaStorage;
}

export async function seedDemo(deps: SeedDeps): Promise<DemoCredentials | null> {
  if (await findStoreWithSlug(deps, DEMO_SLUG)) return null;
  const { store } = await createStore(deps, {
    name: 'Demo Store',
    slug: DEMO_SLUG,
    currency: 'USD',
    ownerEmail: DEMO_OWNER_EMAIL,
  });
  try {
    const key = await createStorefrontKey(deps, store.id, {
      label: 'Demo storefront',
      allowedOrigins: [
        ...new Set([
          ...(deps.baseUrl ? [new URL(deps.baseUrl).origin] : []),
          'http://localhost:3000',
          'http://127.0.0.1:3000',
          'http://localhost:5173',
        ]),
      ],
    });
    await keepKeySealed(deps.db, deps.keyring, { store_id: store.id, id: key.id }, key.key);
    await seedDemoCatalog(deps, store.id);
    await seedDemoTax(deps, store.id);
    await seedDemoContent(deps, store.id);
    await seedDemoShipping(deps, store.id);
    const session = await openStaffSession(deps, store.id, DEMO_OWNER_EMAIL);
    return { storeId: store.id, publishableKey: key.key, staffToken: session.token };
  } catch (error) {
    // The services commit one by one; remove the half-made store (every tenant row cascades) so
    // the next start seeds it again instead of finding a store without its catalog. A busy
    // database may pick the cascade as a deadlock's victim: it is tried again before giving up.
    await removeHalfMadeStore(deps, store.id, error);
    throw error;
  }
}

async function removeHalfMadeStore(deps: SeedDeps, storeId: string, cause: unknown): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deleteStore(deps, storeId);
    } catch (cleanup) {
      if (attempt === 3)
        throw new AggregateError([cause, cleanup], 'the demo seed failed and its half-made store stayed', {
          cause: cleanup,
        });
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/**
 * The demo store's publishable key, for the reference shop at /shop and /docs "Try it": the key
 * made by the seed, kept sealed (decision `shop-publishable-key`). Null without a demo store, or
 * once its key was revoked.
 */
export async function demoStoreKey(deps: Pick<SeedDeps, 'db' | 'keyring'>): Promise<string | null> {
  const store = await findStoreWithSlug(deps, DEMO_SLUG);
  return store ? handedOutKey(deps.db, deps.keyring, store.id) : null;
}
