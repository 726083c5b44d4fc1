/**
 * Gift cards (docs/gift-cards.md, decisions `gift-card-codes` and `gift-card-ledger`): the list,
 * newest first (the code's last 4, the amount issued, the balance, the currency, the expiry, the
 * status; a search by the last 4), issuing one by hand (issue-form.tsx) with its code shown once, and
 * a card's page (detail.tsx). Staff may look; owners and admins issue and change cards.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useGiftCards, type IssuedGiftCard } from '../../data/gift-cards.ts';
import { useMarkets } from '../../data/markets.ts';
import { useStoreSettings } from '../../data/settings.ts';
import { useStaffSession } from '../../data/staff.ts';
import { PageHeader, SecretOnce, StatusBadge, TextField, useCursorPager } from '../../ui/components.tsx';
import { formatDate } from '../../ui/dates.ts';
import { focusLater, ListBanners } from '../../ui/list-editor.tsx';
import { formatMoney } from '../../ui/money.ts';
import { PagedTable } from '../../ui/queries.tsx';
import { FocusOnShow } from '../integrations-parts.tsx';
import { IssueForm } from './issue-form.tsx';
import '../orders.css';
import '../markets/markets.css';
import './gift-cards.css';

export { GiftCardDetail } from './detail.tsx';

const LAST4 = /^[2-9A-HJ-NP-Za-hj-np-z]{4}$/;

export function GiftCards() {
  const session = useStaffSession();
  const settings = useStoreSettings();
  const markets = useMarkets();
  const pager = useCursorPager();
  const [search, setSearch] = useState('');
  const last4 = LAST4.test(search.trim()) ? search.trim().toUpperCase() : '';
  const cards = useGiftCards(pager.cursor, last4);
  const [issuing, setIssuing] = useState(false);
  const [issued, setIssued] = useState<IssuedGiftCard | null>(null);
  const readOnly = session.data?.staff.role === 'staff';
  const storeCurrency = settings.data?.currency;
  const currencies = storeCurrency
    ? [...new Set([storeCurrency, ...(markets.data?.items ?? []).map((market) => market.currency)])]
    : null;

  return (
    <>
      <PageHeader
        title="Gift cards"
        actions={
          readOnly ? null : (
            <button
              type="button"
              className="primary"
              data-issue-card
              onClick={() => {
                setIssued(null);
                setIssuing(true);
              }}
            >
              Issue gift card
            </button>
          )
        }
      >
        <p className="muted">
          Money your store owes the holder of a code. Its code is shown once, when it is issued: only its last
          4 characters are kept, to find it again.
        </p>
      </PageHeader>
      <ListBanners readOnly={readOnly} things="gift cards" notice={null} error={null} />
      {issued ? (
        <FocusOnShow>
          <SecretOnce
            label="Gift card code"
            value={issued.code}
            warning={`copy it now, it will not be shown again. Only its last 4 characters (${issued.last4}) are kept; a lost code means disabling the card and issuing another.`}
            onDone={() => {
              setIssued(null);
              focusLater('[data-issue-card]');
            }}
          />
          <p>
            <Link to={`/gift-cards/${issued.id}`}>Open the card ending {issued.last4}</Link>
          </p>
        </FocusOnShow>
      ) : null}
      {issuing && currencies ? (
        <IssueForm
          currencies={currencies}
          onIssued={(card) => {
            setIssuing(false);
            setIssued(card);
          }}
          onCancel={() => {
            setIssuing(false);
            focusLater('[data-issue-card]');
          }}
        />
      ) : null}
      <form
        className="filters"
        role="search"
        aria-label="Gift cards"
        onSubmit={(event) => event.preventDefault()}
      >
        <TextField
          label="Code ends with"
          type="search"
          value={search}
          maxLength={4}
          placeholder="2WNA"
          hint="The last 4 characters, as the holder reads them from their card."
          onChange={(event) => {
            setSearch(event.target.value);
            pager.reset();
          }}
        />
      </form>
      <PagedTable
        query={cards}
        pager={pager}
        loading="Loading gift cards…"
        empty={<p>{last4 ? `No gift card’s code ends with ${last4}.` : 'No gift cards yet.'}</p>}
        wrap="orders-table-wrap"
        className="row-headed gift-cards-table"
        caption="Gift cards, newest first"
        columns={[
          'Code',
          { label: 'Issued for', num: true },
          { label: 'Balance', num: true },
          'Currency',
          'Expires',
          'Status',
          'Issued',
        ]}
      >
        {(card) => (
          <tr key={card.id}>
            <th scope="row">
              <Link to={`/gift-cards/${card.id}`}>
                <span aria-hidden="true">•••• </span>
                <span className="visually-hidden">Ending </span>
                {card.last4}
              </Link>
            </th>
            <td className="num">{formatMoney(card.initialAmount.amount, card.initialAmount.currency)}</td>
            <td className="num">{formatMoney(card.balance.amount, card.balance.currency)}</td>
            <td>{card.balance.currency}</td>
            <td>{card.expiresAt ? formatDate(card.expiresAt) : 'Never'}</td>
            <td>
              <StatusBadge status={card.status} />
            </td>
            <td>{formatDate(card.createdAt)}</td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}
