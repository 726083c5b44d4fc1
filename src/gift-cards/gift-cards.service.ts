import type { Transaction } from 'kysely';
import { byCreated } from '../db/keyset.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';
import { codeHash, lastFour, newCode, normalCode } from './gift-cards.codes.ts';
import type { GiftCardChange } from './gift-cards.events.ts';
import {
  appendEntry,
  cardsOfCustomer,
  cardsQuery,
  clearNotesOfCustomer,
  entriesOf,
  findCard,
  insertCard,
  lockCard,
  moveBalance,
  updateCard,
} from './gift-cards.repository.ts';
import {
  LEDGER_SHOWN,
  type GiftCard,
  type GiftCardCreate,
  type GiftCardDetail,
  type GiftCardPatch,
  type IssuedGiftCard,
} from './gift-cards.schemas.ts';
import type { GiftCardRow } from './gift-cards.tables.ts';

/**
 * Gift cards, staff's side (decisions `gift-card-codes` and `gift-card-ledger`): issuing a card
 * (its code shown once), reading one with its ledger, changing its note, expiry, owner or state,
 * and adjusting its balance through the ledger. Each change records `gift_card.issued` or
 * `gift_card.updated` in its transaction.
 */

type Deps = Pick<ServiceDeps, 'db' | 'clock'>;

const noCard = () => notFound('No gift card with that id in this store.');
const unknownCustomer = () =>
  validationFailed('The gift card is invalid.', [
    { pointer: '/customerId', detail: 'is not a customer of this store' },
  ]);
export const balanceTooLow = (detail: string) => new AppError('gift_card_balance_too_low', 409, detail);

export function cardStatus(row: GiftCardRow, now: Date): GiftCard['status'] {
  if (row.disabled) return 'disabled';
  if (row.expires_at && row.expires_at <= now) return 'expired';
  return 'active';
}

export function cardView(row: GiftCardRow, now: Date): GiftCard {
  return {
    id: row.id,
    last4: row.last4,
    initialAmount: { amount: row.initial_amount, currency: row.currency },
    balance: { amount: row.balance, currency: row.currency },
    status: cardStatus(row, now),
    disabled: row.disabled,
    expiresAt: row.expires_at?.toISOString() ?? null,
    note: row.note,
    customerId: row.customer_id,
    orderId: row.order_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Records `gift_card.issued` or `gift_card.updated` (with what changed) in the caller's transaction. */
export async function recordCardEvent(
  trx: Transaction<Database>,
  row: GiftCardRow,
  changed: readonly GiftCardChange[] | 'issued',
): Promise<void> {
  const card = {
    giftCardId: row.id,
    last4: row.last4,
    balance: { amount: row.balance, currency: row.currency },
    ...(changed === 'issued' && row.order_id !== null ? { orderId: row.order_id } : {}),
  };
  await recordEvent(trx, {
    storeId: row.store_id,
    type: changed === 'issued' ? 'gift_card.issued' : 'gift_card.updated',
    resource: `gift_card:${row.id}`,
    data: changed === 'issued' ? card : { ...card, changed },
  });
}

function futureExpiry(expiresAt: string | null | undefined, now: Date): Date | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const at = new Date(expiresAt);
  if (at <= now)
    throw validationFailed('The gift card is invalid.', [
      { pointer: '/expiresAt', detail: 'is not in the future' },
    ]);
  return at;
}

/**
 * POST /admin/v1/gift-cards: a new card with a fresh code, its `issue` entry and
 * `gift_card.issued`, in one transaction; the answer carries the code, the only time it is shown.
 */
export async function issueGiftCard(
  deps: Deps,
  storeId: string,
  body: GiftCardCreate,
): Promise<IssuedGiftCard> {
  const now = deps.clock.now();
  const expiresAt = futureExpiry(body.expiresAt, now);
  for (let attempt = 0; ; attempt++) {
    const code = newCode();
    const normal = normalCode(code)!;
    try {
      const row = await deps.db.transaction().execute(async (trx) => {
        const card = await insertCard(trx, {
          storeId,
          codeHash: codeHash(normal),
          last4: lastFour(normal),
          currency: body.currency,
          amount: body.initialAmount,
          expiresAt,
          note: body.note ?? null,
          customerId: body.customerId ?? null,
          now,
        });
        await appendEntry(trx, { storeId, cardId: card.id, kind: 'issue', amount: card.balance, now });
        await recordCardEvent(trx, card, 'issued');
        return card;
      });
      return { ...cardView(row, now), code };
    } catch (error) {
      if (isForeignKeyViolation(error, 'gift_cards_customer_fkey')) throw unknownCustomer();
      // Two codes of 80 random bits alike: draw again (never seen; bounded anyway).
      if (isUniqueViolation(error, 'gift_cards_code_idx') && attempt < 3) continue;
      throw error;
    }
  }
}

/** GET /admin/v1/gift-cards: newest first; those whose code ends in `last4`, or that an order sold. */
export function listGiftCards(
  deps: Pick<ServiceDeps, 'db' | 'cursors' | 'clock'>,
  storeId: string,
  query: {
    limit?: number | undefined;
    cursor?: string | undefined;
    last4?: string | undefined;
    orderId?: string | undefined;
  },
): Promise<ListPage<GiftCard>> {
  const last4 = query.last4?.toUpperCase();
  const orderId = query.orderId?.toLowerCase();
  const now = deps.clock.now();
  return byCreated(
    deps.cursors,
    `${storeId}:gift-cards:${last4 ?? ''}${orderId === undefined ? '' : `:order=${orderId}`}`,
    cardsQuery(deps.db, storeId, {
      ...(last4 === undefined ? {} : { last4 }),
      ...(orderId === undefined ? {} : { orderId }),
    }),
    query,
    (row) => cardView(row, now),
    '',
    true,
  );
}

/** GET /admin/v1/gift-cards/:id: the card with its ledger (the latest LEDGER_SHOWN entries). */
export async function getGiftCard(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  cardId: string,
): Promise<GiftCardDetail> {
  const row = await findCard(deps.db, storeId, cardId);
  if (!row) throw noCard();
  const entries = await entriesOf(deps.db, storeId, cardId, LEDGER_SHOWN);
  return {
    ...cardView(row, deps.clock.now()),
    ledger: entries.map((entry) => ({
      kind: entry.kind,
      amount: entry.amount,
      held: entry.held,
      orderId: entry.order_id,
      reason: entry.reason,
      createdAt: entry.created_at.toISOString(),
    })),
  };
}

/** The fields of a PATCH that change the card, and their names in `gift_card.updated`. */
function changesOf(row: GiftCardRow, body: GiftCardPatch, now: Date) {
  const changes: Parameters<typeof updateCard>[3] = {};
  const changed: GiftCardChange[] = [];
  if (body.note !== undefined && body.note !== row.note) {
    changes.note = body.note;
    changed.push('note');
  }
  if (body.expiresAt !== undefined) {
    const at = body.expiresAt === null ? null : futureExpiry(body.expiresAt, now);
    if (at?.getTime() !== row.expires_at?.getTime()) {
      changes.expires_at = at;
      changed.push('expiresAt');
    }
  }
  if (body.customerId !== undefined && body.customerId?.toLowerCase() !== row.customer_id) {
    changes.customer_id = body.customerId;
    changed.push('customerId');
  }
  if (body.disabled !== undefined && body.disabled !== row.disabled) {
    changes.disabled = body.disabled;
    changed.push('disabled');
  }
  return { changes, changed };
}

/**
 * PATCH /admin/v1/gift-cards/:id: note, expiry, owner, disabled, and an `adjustment` that goes into
 * the ledger with its reason (never below 0: 409 `gift_card_balance_too_low`). Under the card's row
 * lock, so it applies after or before a checkout's hold, never in between.
 */
export async function updateGiftCard(
  deps: Deps,
  storeId: string,
  cardId: string,
  body: GiftCardPatch,
): Promise<GiftCardDetail> {
  const now = deps.clock.now();
  if (body.adjustment?.amount === 0)
    throw validationFailed('The change is invalid.', [{ pointer: '/adjustment/amount', detail: 'is 0' }]);
  try {
    await deps.db.transaction().execute(async (trx) => {
      const row = await lockCard(trx, storeId, cardId);
      if (!row) throw noCard();
      const { changes, changed } = changesOf(row, body, now);
      let card = row;
      if (changed.length > 0) card = await updateCard(trx, storeId, cardId, changes, now);
      if (body.adjustment) {
        const { amount, reason } = body.adjustment;
        const moved = await moveBalance(trx, { storeId, cardId, delta: amount, now });
        if (!moved) throw balanceTooLow(`The card’s balance is ${row.balance}; it cannot go below 0.`);
        await appendEntry(trx, { storeId, cardId, kind: 'adjust', amount, reason: reason.trim(), now });
        card = moved;
        changed.push('balance');
      }
      if (changed.length > 0) await recordCardEvent(trx, card, changed);
    });
  } catch (error) {
    if (isForeignKeyViolation(error, 'gift_cards_customer_fkey')) throw unknownCustomer();
    throw error;
  }
  return getGiftCard(deps, storeId, cardId);
}

/** A customer's cards, without codes or notes (their data export). */
export async function giftCardsOfCustomer(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  customerId: string,
): Promise<
  { id: string; last4: string; balance: { amount: number; currency: string }; createdAt: string }[]
> {
  const rows = await cardsOfCustomer(deps.db, storeId, customerId);
  return rows.map((row) => ({
    id: row.id,
    last4: row.last4,
    balance: { amount: row.balance, currency: row.currency },
    createdAt: row.created_at.toISOString(),
  }));
}

/**
 * A customer's erasure: the notes of their cards go (staff may have written about them); the cards
 * and their money stay, unlinked from the customer when the customer row goes.
 */
export function forgetGiftCardNotesOf(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  customerId: string,
): Promise<void> {
  return clearNotesOfCustomer(deps.db, storeId, customerId);
}
