import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound, validationFailed } from '../lib/errors.ts';
import type { Keyring } from '../lib/keyring.ts';
import { generateEndpointSecret } from '../webhooks/webhooks.secrets.ts';
import { checkEndpointUrl } from '../webhooks/webhooks.url-guard.ts';
import {
  deleteTaxService,
  findTaxService,
  insertTaxService,
  updateTaxService,
} from './tax-service.repository.ts';
import type { TaxService, TaxServiceBody, TaxServiceWithSecret } from './tax-service.schemas.ts';
import { sealTaxServiceSecret } from './tax-service.secret.ts';
import type { TaxServiceRow } from './tax-service.tables.ts';

/**
 * The store's tax service as staff set it (decision `tax-service`): its URL, checked by the webhook
 * SSRF rules, whether it is asked, and its signing secret, made once and shown once (as Stripe
 * shows a webhook endpoint's): on creation and on rotation, never on a read or a change of URL.
 */

export interface TaxServiceSettingsDeps {
  db: Kysely<Database>;
  clock: Clock;
  keyring: Keyring;
  /** Allow http:// and loopback URLs (ALLOW_HTTP_WEBHOOKS; development and tests). */
  allowHttp: boolean;
}

const view = (row: TaxServiceRow): TaxService => ({
  url: row.url,
  active: row.active,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const noService = () => notFound('This store has no tax service.');

async function checkedUrl(deps: Pick<TaxServiceSettingsDeps, 'allowHttp'>, raw: string): Promise<string> {
  const checked = await checkEndpointUrl(raw, { allowHttp: deps.allowHttp });
  if ('detail' in checked)
    throw validationFailed(`url ${checked.detail}.`, [
      { pointer: '/url', detail: checked.detail, in: 'body' },
    ]);
  return checked.url;
}

/**
 * Sets the store's tax service: creates it with a new signing secret (`created`, the secret in the
 * answer), or changes its URL and `active` (the secret stays, and is not shown).
 */
export async function putTaxService(
  deps: TaxServiceSettingsDeps,
  storeId: string,
  body: TaxServiceBody,
): Promise<{ created: true; service: TaxServiceWithSecret } | { created: false; service: TaxService }> {
  const url = await checkedUrl(deps, body.url);
  const now = deps.clock.now();
  const active = body.active ?? true;
  const changed = await updateTaxService(deps.db, storeId, { url, active, updated_at: now });
  if (changed) return { created: false, service: view(changed) };
  const secret = generateEndpointSecret();
  const inserted = await insertTaxService(deps.db, {
    store_id: storeId,
    url,
    active,
    secret_ciphertext: sealTaxServiceSecret(deps.keyring, storeId, secret),
    created_at: now,
    updated_at: now,
  });
  // Created by a concurrent PUT meanwhile: this one changes it, as if it had come second.
  if (!inserted) return putTaxService(deps, storeId, body);
  return { created: true, service: { ...view(inserted), secret } };
}

export async function getTaxService(
  deps: Pick<TaxServiceSettingsDeps, 'db'>,
  storeId: string,
): Promise<TaxService> {
  const row = await findTaxService(deps.db, storeId);
  if (!row) throw noService();
  return view(row);
}

export async function removeTaxService(
  deps: Pick<TaxServiceSettingsDeps, 'db'>,
  storeId: string,
): Promise<void> {
  if (!(await deleteTaxService(deps.db, storeId))) throw noService();
}

/** A new signing secret, shown in this answer only; the old one stops signing at once. */
export async function rotateTaxServiceSecret(
  deps: Pick<TaxServiceSettingsDeps, 'db' | 'clock' | 'keyring'>,
  storeId: string,
): Promise<TaxServiceWithSecret> {
  const secret = generateEndpointSecret();
  const row = await updateTaxService(deps.db, storeId, {
    secret_ciphertext: sealTaxServiceSecret(deps.keyring, storeId, secret),
    updated_at: deps.clock.now(),
  });
  if (!row) throw noService();
  return { ...view(row), secret };
}
