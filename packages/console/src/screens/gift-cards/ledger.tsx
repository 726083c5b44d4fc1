/**
 * A gift card's balance history (decision `gift-card-ledger`): its ledger entries, oldest first,
 * each in words with its effect on the balance, the balance after it, the amount it holds for an
 * order, the order and an adjustment's reason.
 */
import { Link } from 'react-router';
import type { GiftCardLedgerEntry } from '../../data/gift-cards.ts';
import { DataTable } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';

export const ENTRY_WORDS: Record<GiftCardLedgerEntry['kind'], string> = {
  issue: 'Issued',
  reserve: 'Held for an order',
  commit: 'Spent (the order was paid)',
  release: 'Hold given back (the order expired or was cancelled)',
  refund: 'Refunded to the card',
  adjust: 'Adjusted by staff',
};

/** A signed amount: "+$10.00", "−$15.00", "$0.00". */
export function signedMoney(amount: number, currency: string): string {
  if (amount === 0) return formatMoney(0, currency);
  return `${amount > 0 ? '+' : '−'}${formatMoney(Math.abs(amount), currency)}`;
}

/** The balance after each entry, worked back from the balance now (the ledger may start later). */
export function balancesAfter(entries: readonly GiftCardLedgerEntry[], balance: number): number[] {
  const after: number[] = new Array<number>(entries.length);
  let running = balance;
  for (let index = entries.length - 1; index >= 0; index--) {
    after[index] = running;
    running -= entries[index]!.amount;
  }
  return after;
}

export function Ledger({
  entries,
  balance,
  currency,
}: {
  entries: readonly GiftCardLedgerEntry[];
  balance: number;
  currency: string;
}) {
  const after = balancesAfter(entries, balance);
  return (
    <DataTable
      wrap="orders-table-wrap"
      className="gift-card-ledger"
      caption="Balance history, oldest first"
      columns={[
        'Date',
        'Entry',
        { label: 'Amount', num: true },
        { label: 'Balance after', num: true },
        { label: 'Held for an order', num: true },
        'Order',
        'Reason',
      ]}
    >
      {entries.map((entry, index) => (
        <tr key={index}>
          <td>{formatDateTime(entry.createdAt)}</td>
          <td>{ENTRY_WORDS[entry.kind]}</td>
          <td className="num">{signedMoney(entry.amount, currency)}</td>
          <td className="num">{formatMoney(after[index]!, currency)}</td>
          <td className="num">{entry.held === 0 ? '—' : signedMoney(entry.held, currency)}</td>
          <td>{entry.orderId ? <Link to={`/orders/${entry.orderId}`}>Open the order</Link> : '—'}</td>
          <td className="reason">{entry.reason ?? '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}
