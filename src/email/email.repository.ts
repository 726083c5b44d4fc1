import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { ExpectedRecord } from './email.records.ts';
import type {
  DomainStatus,
  SendingDomainRecordRow,
  SendingDomainRow,
  SendingDomainTable,
} from './email.tables.ts';

/** All SQL of sending domains. Every query is scoped by store, except the global claim. */

type Db = Kysely<Database> | Transaction<Database>;

/** Claims a domain for a store; false when another store (or this one) holds it already. */
export async function insertClaim(trx: Db, storeId: string, domain: string): Promise<boolean> {
  const row = await trx
    .insertInto('sending_domain_claims')
    .values({ domain, store_id: storeId })
    .onConflict((oc) => oc.column('domain').doNothing())
    .returning('domain')
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertSendingDomain(
  trx: Db,
  values: {
    storeId: string;
    domain: string;
    fromLocalPart: string;
    now: Date;
    nextCheckAt: Date;
    unprovenSince: Date;
  },
): Promise<SendingDomainRow> {
  return trx
    .insertInto('sending_domains')
    .values({
      store_id: values.storeId,
      domain: values.domain,
      from_local_part: values.fromLocalPart,
      unproven_since: values.unprovenSince,
      window_started_at: values.now,
      next_check_at: values.nextCheckAt,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertRecords(
  trx: Db,
  storeId: string,
  domainId: string,
  records: readonly ExpectedRecord[],
): Promise<SendingDomainRecordRow[]> {
  return trx
    .insertInto('sending_domain_records')
    .values(
      records.map((record) => ({
        store_id: storeId,
        domain_id: domainId,
        position: record.position,
        type: record.type,
        name: record.name,
        value: record.value,
        priority: record.priority,
      })),
    )
    .returningAll()
    .execute()
    .then((rows) => rows.sort((a, b) => a.position - b.position));
}

export async function insertDkimKeys(
  trx: Db,
  storeId: string,
  domainId: string,
  keys: readonly { token: string; publicKey: string; ciphertext: string }[],
): Promise<void> {
  await trx
    .insertInto('dkim_keys')
    .values(
      keys.map((key, position) => ({
        store_id: storeId,
        domain_id: domainId,
        token: key.token,
        position,
        public_key: key.publicKey,
        private_key_ciphertext: key.ciphertext,
      })),
    )
    .execute();
}

/** The store's domain; with `lock` (in a transaction) locked until the transaction ends. */
export function findSendingDomain(
  db: Db,
  storeId: string,
  options: { lock?: boolean } = {},
): Promise<SendingDomainRow | undefined> {
  return db
    .selectFrom('sending_domains')
    .selectAll()
    .where('store_id', '=', storeId)
    .$if(options.lock === true, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** The domain row, locked until the transaction ends (checks and verify-now serialise on it). */
export function lockSendingDomain(
  trx: Transaction<Database>,
  storeId: string,
  domainId: string,
): Promise<SendingDomainRow | undefined> {
  return trx
    .selectFrom('sending_domains')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', domainId)
    .forUpdate()
    .executeTakeFirst();
}

export function findRecords(db: Db, storeId: string, domainId: string): Promise<SendingDomainRecordRow[]> {
  return db
    .selectFrom('sending_domain_records')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('domain_id', '=', domainId)
    .orderBy('position')
    .execute();
}

export async function updateSendingDomain(
  trx: Db,
  storeId: string,
  domainId: string,
  changes: Partial<{
    [K in Exclude<keyof SendingDomainTable, 'store_id' | 'id' | 'created_at'>]: SendingDomainRow[K];
  }>,
): Promise<SendingDomainRow> {
  return trx
    .updateTable('sending_domains')
    .set(changes)
    .where('store_id', '=', storeId)
    .where('id', '=', domainId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateRecord(
  trx: Db,
  storeId: string,
  domainId: string,
  position: number,
  changes: { status: DomainStatus; detail?: string; checked_at?: Date },
): Promise<void> {
  await trx
    .updateTable('sending_domain_records')
    .set(changes)
    .where('store_id', '=', storeId)
    .where('domain_id', '=', domainId)
    .where('position', '=', position)
    .execute();
}

/** Deletes the store's domain (through its claim: records and keys go with it). */
async function deleteSendingDomain(db: Db, storeId: string): Promise<string | null> {
  const row = await db
    .deleteFrom('sending_domain_claims')
    .where('store_id', '=', storeId)
    .returning('domain')
    .executeTakeFirst();
  return row?.domain ?? null;
}

/**
 * Deletes a domain the caller has locked; an unproven one leaves its release clock behind under the
 * store and name (decision `released-domain-deleted`), so registering the name again continues the clock instead of restarting it.
 */
export async function deleteDomainKeepingClock(trx: Db, row: SendingDomainRow): Promise<void> {
  if (row.unproven_since !== null) {
    await trx
      .insertInto('sending_domain_clocks')
      .values({ store_id: row.store_id, domain: row.domain, unproven_since: row.unproven_since })
      .onConflict((oc) =>
        oc.columns(['store_id', 'domain']).doUpdateSet({
          unproven_since: sql<Date>`least(sending_domain_clocks.unproven_since, excluded.unproven_since)`,
        }),
      )
      .execute();
  }
  await deleteSendingDomain(trx, row.store_id);
}

/** The release clock the store left behind for a name, if any. */
export async function findClock(db: Db, storeId: string, domain: string): Promise<Date | null> {
  const row = await db
    .selectFrom('sending_domain_clocks')
    .select('unproven_since')
    .where('store_id', '=', storeId)
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row?.unproven_since ?? null;
}

/** Takes the release clock the store left behind for a name (the new domain row carries it on). */
export async function takeClock(trx: Db, storeId: string, domain: string): Promise<Date | null> {
  const row = await trx
    .deleteFrom('sending_domain_clocks')
    .where('store_id', '=', storeId)
    .where('domain', '=', domain)
    .returning('unproven_since')
    .executeTakeFirst();
  return row?.unproven_since ?? null;
}

/** Forgets clocks that started before `before`: they can no longer refuse or shorten anything. */
export async function purgeClocks(db: Db, before: Date): Promise<number> {
  const result = await db
    .deleteFrom('sending_domain_clocks')
    .where('unproven_since', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Domains unproven since before `cutoff` (pending or failed, whatever verify-now did): what decision `released-domain-deleted` releases. */
export async function findAbandonedDomains(
  db: Db,
  cutoff: Date,
  limit: number,
): Promise<{ store_id: string; id: string }[]> {
  return db
    .selectFrom('sending_domains')
    .select(['store_id', 'id'])
    .where('unproven_since', '<', cutoff)
    .orderBy('unproven_since')
    .limit(limit)
    .execute();
}

/**
 * Takes up to `limit` domains whose check is due, leasing each (next_check_at moves to `leaseUntil`)
 * so that other workers skip them while this one looks them up.
 */
export async function claimDueDomains(
  db: Kysely<Database>,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<{ store_id: string; id: string }[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('sending_domains')
      .select(['store_id', 'id'])
      .where('next_check_at', '<=', now)
      .orderBy('next_check_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    for (const row of due) {
      await trx
        .updateTable('sending_domains')
        .set({ next_check_at: leaseUntil })
        .where('store_id', '=', row.store_id)
        .where('id', '=', row.id)
        .execute();
    }
    return due;
  });
}

/** Whether a domain is claimed, and by which store. */
export async function claimHolder(db: Db, domain: string): Promise<string | null> {
  const row = await db
    .selectFrom('sending_domain_claims')
    .select('store_id')
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row?.store_id ?? null;
}

/** The store's verified domain with its signing key (position 0), if it has one. */
export function findVerifiedSigningKey(
  db: Db,
  storeId: string,
): Promise<
  { domain: string; from_local_part: string; token: string; private_key_ciphertext: string } | undefined
> {
  return db
    .selectFrom('sending_domains as d')
    .innerJoin('dkim_keys as k', (join) =>
      join.onRef('k.store_id', '=', 'd.store_id').onRef('k.domain_id', '=', 'd.id').on('k.position', '=', 0),
    )
    .select(['d.domain', 'd.from_local_part', 'k.token', 'k.private_key_ciphertext'])
    .where('d.store_id', '=', storeId)
    .where('d.status', '=', 'verified')
    .executeTakeFirst();
}

/** Every DKIM public key with its domain, in zone order (domain, then position). */
export function allDkimPublicKeys(
  db: Db,
): Promise<{ store_id: string; token: string; public_key: string; domain: string; status: DomainStatus }[]> {
  return db
    .selectFrom('dkim_keys as k')
    .innerJoin('sending_domains as d', (join) =>
      join.onRef('d.store_id', '=', 'k.store_id').onRef('d.id', '=', 'k.domain_id'),
    )
    .select(['k.store_id', 'k.token', 'k.public_key', 'd.domain', 'd.status'])
    .orderBy('d.domain')
    .orderBy('k.position')
    .execute();
}

export interface DkimKeyRef {
  store_id: string;
  token: string;
  private_key_ciphertext: string;
}

/** DKIM private keys in key order after `after`. */
export function dkimPrivateKeyBatch(
  db: Db,
  after: { store_id: string; token: string } | undefined,
  limit: number,
): Promise<DkimKeyRef[]> {
  return db
    .selectFrom('dkim_keys')
    .select(['store_id', 'token', 'private_key_ciphertext'])
    .$if(after !== undefined, (qb) =>
      qb.where((eb) => eb(eb.refTuple('store_id', 'token'), '>', eb.tuple(after!.store_id, after!.token))),
    )
    .orderBy('store_id')
    .orderBy('token')
    .limit(limit)
    .execute();
}

export async function updateDkimPrivateKey(
  db: Db,
  key: { store_id: string; token: string },
  ciphertext: string,
): Promise<void> {
  await db
    .updateTable('dkim_keys')
    .set({ private_key_ciphertext: ciphertext })
    .where('store_id', '=', key.store_id)
    .where('token', '=', key.token)
    .execute();
}
