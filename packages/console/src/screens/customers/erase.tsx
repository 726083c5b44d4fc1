/**
 * Erasing a customer from their page (decision `customer-accounts`), after a dialog that names what goes and what stays, with
 * the numbers of this customer: their account, saved addresses and sessions are deleted; the names,
 * emails, phones and addresses on their orders are scrubbed while the orders' numbers, lines and
 * amounts stay; orders not yet shipped lose their shipping address. The merchant types the
 * customer's email to confirm. Once erased, the console goes back to the list with a message.
 */
import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import { useNavigate } from 'react-router';
import { ordersOf, useEraseCustomer, type CustomerDetail } from '../../data/customers.ts';
import { ErrorBanner, TextField } from '../../ui/components.tsx';

/** "1 order", "3 saved addresses": a count and its noun. */
function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What erasing this customer deletes and scrubs, in the dialog's words. */
export function erasureConsequences(customer: CustomerDetail): { deleted: string; scrubbed: string } {
  const addresses = count(customer.addresses.length, 'saved address', 'saved addresses');
  const deleted = customer.hasAccount
    ? `Their account, ${addresses} and their sign-in sessions are deleted.`
    : `Their customer record and ${addresses} are deleted (a guest: no account or sessions).`;
  const { count: orderCount, atLeast } = ordersOf(customer);
  const orders = `${atLeast ? 'at least ' : ''}${count(orderCount, 'order', 'orders')}`;
  const scrubbed =
    orderCount === 0
      ? 'They have no orders: nothing else changes.'
      : `Names, emails, phones and addresses on their ${orders} are scrubbed. The order numbers, lines and amounts stay, so your sales figures do not change.`;
  return { deleted, scrubbed };
}

/** The list's message once the customer is erased. */
function erasedNotice(customer: CustomerDetail): string {
  const orders = ordersOf(customer).count;
  if (orders === 0) return `Customer ${customer.email} erased.`;
  return orders === 1
    ? `Customer ${customer.email} erased. Their order keeps its number, lines and amounts.`
    : `Customer ${customer.email} erased. Their ${orders} orders keep their numbers, lines and amounts.`;
}

/** Whether the typed text is the customer's email (case and surrounding spaces aside). */
const sameEmail = (typed: string, email: string) => typed.trim().toLowerCase() === email.toLowerCase();

/** The dialog's form: mounted each time the dialog opens, so the confirmation starts empty. */
function EraseForm({
  customer,
  dialog,
}: {
  customer: CustomerDetail;
  dialog: RefObject<HTMLDialogElement | null>;
}) {
  const navigate = useNavigate();
  const [typed, setTyped] = useState('');
  const [tried, setTried] = useState(false);
  const erase = useEraseCustomer(customer.id, {
    onSuccess: () => {
      dialog.current?.close();
      void navigate('/customers', { state: { notice: erasedNotice(customer) } });
    },
  });
  const { deleted, scrubbed } = erasureConsequences(customer);
  const confirmed = sameEmail(typed, customer.email);
  const problem =
    tried && !confirmed ? `Type ${customer.email} exactly to confirm, or keep the customer.` : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (!confirmed) return;
    erase.mutate();
  }

  return (
    <form onSubmit={submit} noValidate>
      <ul className="erase-consequences">
        <li>{deleted}</li>
        <li>{scrubbed}</li>
      </ul>
      {customer.openOrders > 0 ? (
        <div className="banner warning">
          <p>
            <strong>
              {customer.openOrders === 1
                ? '1 of their orders has not shipped yet.'
                : `${customer.openOrders} of their orders have not shipped yet.`}
            </strong>{' '}
            {customer.openOrders === 1 ? 'It loses its' : 'They lose their'} shipping address: ship or cancel{' '}
            {customer.openOrders === 1 ? 'it' : 'them'} first, or you will not know where to send{' '}
            {customer.openOrders === 1 ? 'it' : 'them'}.
          </p>
        </div>
      ) : null}
      <p>This cannot be undone. The erasure is recorded in the privacy log.</p>
      <TextField
        label="Type the customer's email to confirm"
        name="confirm-email"
        autoComplete="off"
        spellCheck={false}
        hint={customer.email}
        value={typed}
        error={problem}
        onChange={(event) => {
          setTyped(event.target.value);
          if (erase.isError) erase.reset();
        }}
      />
      {erase.isError ? <ErrorBanner error={erase.error} /> : null}
      <div className="actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Keep the customer
        </button>
        <button type="submit" className="danger" disabled={erase.isPending}>
          {erase.isPending ? 'Erasing…' : 'Erase customer'}
        </button>
      </div>
    </form>
  );
}

/** The confirmation in a native modal <dialog>; its form is there only while it is open. */
function EraseDialog({
  customer,
  dialog,
  open,
  onClosed,
}: {
  customer: CustomerDetail;
  dialog: RefObject<HTMLDialogElement | null>;
  open: boolean;
  onClosed: () => void;
}) {
  const titleId = useId();
  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
  }, [open, dialog]);
  return (
    <dialog ref={dialog} aria-labelledby={titleId} className="confirm erase-dialog" onClose={onClosed}>
      <h2 id={titleId}>Erase {customer.email}?</h2>
      {open ? <EraseForm customer={customer} dialog={dialog} /> : null}
    </dialog>
  );
}

/** "Erase customer": what it does in a sentence, the button and its dialog (owners and admins only). */
export function EraseSection({ customer }: { customer: CustomerDetail }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  return (
    <section className="panel orders-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Erase customer</h2>
      <p>
        Deletes their personal data, as the law lets them ask: the account and addresses go, and their orders
        keep no name, email, phone or address.
      </p>
      <button type="button" className="danger" onClick={() => setOpen(true)}>
        Erase customer…
      </button>
      <EraseDialog customer={customer} dialog={dialog} open={open} onClosed={() => setOpen(false)} />
    </section>
  );
}
