/**
 * A gift card's page (decision `gift-card-ledger`): its balance, the amount issued, its status,
 * expiry, customer and note; its balance history (the ledger); and, for owners and admins, its note
 * and expiry, disabling it (after a confirmation) or enabling it again, and adjusting its balance
 * with a reason (card-forms.tsx).
 */
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useCustomer } from '../../data/customers.ts';
import { useGiftCard, useUpdateGiftCard, type GiftCardDetail as Card } from '../../data/gift-cards.ts';
import { useStaffSession } from '../../data/staff.ts';
import { ConfirmButton, ErrorBanner, Loading, PageHeader, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { FocusedNotice, ScreenError } from '../integrations-parts.tsx';
import { AdjustForm, DetailsForm } from './card-forms.tsx';
import { Ledger } from './ledger.tsx';
import '../orders.css';
import './gift-cards.css';

function CustomerLink({ id }: { id: string }) {
  const customer = useCustomer(id);
  return <Link to={`/customers/${id}`}>{customer.data?.email ?? 'Open the customer'}</Link>;
}

function Facts({ card }: { card: Card }) {
  const money = (value: { amount: number; currency: string }) => formatMoney(value.amount, value.currency);
  return (
    <section className="panel" aria-labelledby="gift-card-facts">
      <h2 id="gift-card-facts">The card</h2>
      <dl className="gift-card-facts">
        <dt>Balance</dt>
        <dd className="gift-card-balance">{money(card.balance)}</dd>
        <dt>Issued for</dt>
        <dd>{money(card.initialAmount)}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={card.status} />
        </dd>
        <dt>Expires</dt>
        <dd>{card.expiresAt ? formatDateTime(card.expiresAt) : 'Never'}</dd>
        <dt>Customer</dt>
        <dd>{card.customerId ? <CustomerLink id={card.customerId} /> : 'Nobody: whoever holds the code'}</dd>
        <dt>Note</dt>
        <dd>{card.note ?? '—'}</dd>
        <dt>Issued</dt>
        <dd>{formatDateTime(card.createdAt)}</dd>
      </dl>
    </section>
  );
}

function DisableButton({ card, onSaved }: { card: Card; onSaved: (message: string) => void }) {
  const change = useUpdateGiftCard(card.id, (saved) =>
    onSaved(saved.disabled ? 'The card is disabled: it pays nothing.' : 'The card is enabled again.'),
  );
  return (
    <>
      <ErrorBanner error={change.error} />
      {card.disabled ? (
        <button type="button" disabled={change.isPending} onClick={() => change.mutate({ disabled: false })}>
          Enable card
        </button>
      ) : (
        <ConfirmButton
          title={`Disable the card ending ${card.last4}?`}
          body={<p>It pays nothing until you enable it again; its balance is kept.</p>}
          confirmLabel="Disable card"
          disabled={change.isPending}
          onConfirm={() => change.mutate({ disabled: true })}
        >
          Disable card
        </ConfirmButton>
      )}
    </>
  );
}

export function GiftCardDetail() {
  const { id = '' } = useParams();
  const session = useStaffSession();
  const card = useGiftCard(id);
  const [notice, setNotice] = useState<string | null>(null);
  const readOnly = session.data?.staff.role === 'staff';

  if (card.isPending) return <Loading label="Loading the gift card…" />;
  if (card.isError)
    return (
      <>
        <PageHeader title="Gift card" />
        <ScreenError
          error={card.error}
          allowed="staff members"
          what="see gift cards"
          onRetry={() => void card.refetch()}
        />
        <p>
          <Link to="/gift-cards">All gift cards</Link>
        </p>
      </>
    );
  const data = card.data;
  return (
    <div className="gift-card-page">
      <PageHeader
        title={`Gift card ending ${data.last4}`}
        actions={readOnly ? null : <DisableButton card={data} onSaved={setNotice} />}
      >
        <p className="muted">
          <Link to="/gift-cards">All gift cards</Link>
        </p>
      </PageHeader>
      <FocusedNotice message={notice} />
      <Facts card={data} />
      <section className="panel" aria-labelledby="gift-card-history">
        <h2 id="gift-card-history">Balance history</h2>
        <Ledger entries={data.ledger} balance={data.balance.amount} currency={data.balance.currency} />
      </section>
      {readOnly ? null : (
        <div className="gift-card-panels">
          <AdjustForm key={data.balance.amount} card={data} onSaved={setNotice} />
          <DetailsForm key={data.updatedAt} card={data} onSaved={setNotice} />
        </div>
      )}
    </div>
  );
}
