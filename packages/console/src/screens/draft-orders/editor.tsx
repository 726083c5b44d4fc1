/**
 * A draft order's page. A new one (`/draft-orders/new`) gathers who it is for and its first items,
 * then is created (the server prices it from then on). An open one changes section by section:
 * each change is sent at once (items, customer) or by its form's button (address, shipping,
 * discount), and the answer, priced again, replaces what is shown, totals included. A placed draft
 * (invoiced or completed) is read-only, with its order.
 */
import type { Address } from '@storefront/address';
import { useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import {
  linesInput,
  useCreateDraftOrder,
  useDraftOrder,
  useUpdateDraftOrder,
  type DraftLineInput,
  type DraftOrder,
  type DraftOrderPatch,
  type DraftOrderPlaced,
} from '../../data/draft-orders.ts';
import { useStaffSession } from '../../data/staff.ts';
import {
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  ProblemBanner,
  StatusBadge,
} from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import {
  fieldMessage,
  isStatus,
  localProblem,
  toFormProblem,
  unclaimed,
  type FormProblem,
} from '../../ui/problems.ts';
import { DraftActions, DraftOrderOutcome, PlacedNotice, Totals } from './actions.tsx';
import { AddressForm, PostalAddress } from './address.tsx';
import { buyerBody, CustomerChooser, type Buyer } from './customer.tsx';
import { LinesTable, VariantPicker, type ChosenVariant, type ShownLine } from './lines.tsx';
import { DiscountForm, ShippingForm } from './shipping-discount.tsx';

/** The sections of the page, each showing the problem of its own last change. */
type Section = 'items' | 'customer' | 'address' | 'shipping' | 'discount';

const SECTION_OF: [RegExp, Section][] = [
  [/^\/lines(\/|$)/, 'items'],
  [/^\/(customerId|email)(\/|$)/, 'customer'],
  [/^\/shippingAddress(\/|$)/, 'address'],
  [/^\/(shippingMethodId|customShipping)(\/|$)/, 'shipping'],
  [/^\/discount(\/|$)/, 'discount'],
];

function shownLines(draft: DraftOrder): ShownLine[] {
  return draft.lines.map((line) => ({
    key: line.id,
    title: line.title,
    label: line.variantLabel,
    sku: line.sku,
    quantity: line.quantity,
    custom: line.custom,
    unitPrice: line.unitPrice,
    lineTotal: line.lineTotal,
    discount: line.discount,
  }));
}

// ---- A new draft ----

interface LocalLine extends ChosenVariant {
  quantity: number;
}

export function NewDraftOrder() {
  const navigate = useNavigate();
  const [buyer, setBuyer] = useState<Buyer | null>(null);
  const [lines, setLines] = useState<LocalLine[]>([]);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const create = useCreateDraftOrder(
    (draft) =>
      void navigate(`/draft-orders/${draft.id}`, { replace: true, state: { notice: 'Draft created.' } }),
  );

  function submit() {
    const fields = [];
    if (!buyer) fields.push({ pointer: '/customerId', detail: 'Choose a customer or type an email.' });
    if (lines.length === 0) fields.push({ pointer: '/lines', detail: 'Add at least one product.' });
    if (fields.length > 0) return setProblem(localProblem('The draft needs a customer and an item.', fields));
    setProblem(null);
    create.mutate(
      {
        ...buyerBody(buyer!),
        lines: lines.map((line) => ({ variantId: line.variantId, quantity: line.quantity })),
      },
      { onError: (error) => setProblem(toFormProblem(error)) },
    );
  }

  const shown = (pointer: string) => SECTION_OF.some(([pattern]) => pattern.test(pointer));
  return (
    <>
      <PageHeader title="New draft order">
        <p className="muted">
          Choose who it is for and add items; the server then prices it as checkout would.{' '}
          <Link to="/draft-orders">All draft orders</Link>
        </p>
      </PageHeader>
      <ProblemBanner problem={problem} others={problem ? unclaimed(problem, shown) : []} />
      <div className="order-layout">
        <div className="draft-sections">
          <section className="panel orders-panel" aria-labelledby="draft-items-title">
            <h2 id="draft-items-title">Items</h2>
            {fieldMessage(problem, '/lines', 'The items') ? (
              <p className="field-error">{fieldMessage(problem, '/lines', 'The items')}</p>
            ) : null}
            <LinesTable
              lines={lines.map((line) => ({
                ...line,
                key: line.variantId,
                custom: false,
                unitPrice: null,
                lineTotal: null,
                discount: null,
              }))}
              readOnly={false}
              busy={create.isPending}
              onQuantity={(key, quantity) =>
                setLines((current) =>
                  current.map((line) => (line.variantId === key ? { ...line, quantity } : line)),
                )
              }
              onRemove={(key) => setLines((current) => current.filter((line) => line.variantId !== key))}
            />
            <VariantPicker
              chosen={new Set(lines.map((line) => line.variantId))}
              disabled={create.isPending}
              onAdd={(variant) => {
                setLines((current) => [...current, { ...variant, quantity: 1 }]);
                setProblem(null);
              }}
            />
          </section>
          <section className="panel orders-panel" aria-labelledby="draft-customer-title">
            <h2 id="draft-customer-title">Customer</h2>
            <CustomerChooser
              current={buyer ? { email: buyer.email, name: 'name' in buyer ? buyer.name : null } : null}
              error={fieldMessage(problem, '/customerId', 'The customer')}
              emailError={fieldMessage(problem, '/email', 'The email')}
              disabled={create.isPending}
              onChoose={(next) => {
                setBuyer(next);
                setProblem(null);
              }}
            />
          </section>
        </div>
        <aside className="draft-side" aria-label="Create">
          <section className="panel orders-panel" aria-labelledby="draft-create-title">
            <h2 id="draft-create-title">Totals</h2>
            <p className="muted">
              The server prices the draft once it is created: the customer’s prices, promotions, tax and
              shipping.
            </p>
            <div className="actions">
              <button type="button" className="primary" disabled={create.isPending} onClick={submit}>
                {create.isPending ? 'Creating…' : 'Create draft'}
              </button>
            </div>
          </section>
        </aside>
      </div>
    </>
  );
}

// ---- An existing draft ----

/** The saved address with "Change address", or the form (at once when there is none yet). */
function AddressSection({
  draft,
  busy,
  problem,
  onSave,
  onRemove,
}: {
  draft: DraftOrder;
  busy: boolean;
  problem: FormProblem | null;
  onSave: (address: Address) => void;
  onRemove: () => void;
}) {
  const saved = draft.shippingAddress;
  const [editing, setEditing] = useState(saved === null);
  if (!editing && saved && !problem) {
    return (
      <>
        <PostalAddress address={saved} />
        <div className="actions form-actions">
          <button type="button" disabled={busy} onClick={() => setEditing(true)}>
            Change address
          </button>
          <button type="button" disabled={busy} onClick={onRemove}>
            Remove address
          </button>
        </div>
      </>
    );
  }
  return (
    <AddressForm
      address={saved}
      defaultCountry=""
      busy={busy}
      problem={problem}
      onSave={onSave}
      onRemove={null}
      onCancel={saved ? () => setEditing(false) : null}
    />
  );
}

export function DraftOrderPage() {
  const { id = '' } = useParams();
  const draft = useDraftOrder(id);
  if (!draft.data) {
    const missing = isStatus(draft.error, 404) || isStatus(draft.error, 400);
    return (
      <>
        <PageHeader title={missing ? 'Draft order not found' : 'Draft order'} />
        {draft.isError ? (
          missing ? (
            <p>
              No such draft in this store (a deleted draft is gone).{' '}
              <Link to="/draft-orders">All draft orders</Link>
            </p>
          ) : (
            <ErrorBanner error={draft.error} onRetry={() => void draft.refetch()} />
          )
        ) : (
          <Loading label="Loading the draft order…" />
        )}
      </>
    );
  }
  // A new key per draft: its forms start from its own record.
  return <DraftEditor key={id} draft={draft.data} />;
}

function DraftEditor({ draft }: { draft: DraftOrder }) {
  const navigate = useNavigate();
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const session = useStaffSession();
  const update = useUpdateDraftOrder(draft.id);
  const [problems, setProblems] = useState<Partial<Record<Section, FormProblem>>>({});
  const [placed, setPlaced] = useState<DraftOrderPlaced | null>(null);
  /** The API's refusal of the last invoice, completion or deletion. */
  const [refusal, setRefusal] = useState<unknown>(null);
  const [savedAt, setSavedAt] = useState<string | null>(null);
  /** Bumped when a saved form should start again from the server's copy. */
  const [formVersion, setFormVersion] = useState(0);
  const open = draft.status === 'open';
  const busy = update.isPending;

  function save(section: Section, patch: DraftOrderPatch, { resetForms = false } = {}) {
    setProblems((current) => ({ ...current, [section]: undefined }));
    update.mutate(patch, {
      onSuccess: (saved) => {
        setSavedAt(saved.updatedAt);
        if (resetForms) setFormVersion((version) => version + 1);
      },
      onError: (error) => setProblems((current) => ({ ...current, [section]: toFormProblem(error) })),
    });
  }

  const lines = linesInput(draft.lines);
  const changeLines = (next: DraftLineInput[]) => save('items', { lines: next });
  const keyOf = (index: number) => draft.lines[index]!.id;
  const onQuantity = (key: string, quantity: number) =>
    changeLines(lines.map((line, index) => (keyOf(index) === key ? { ...line, quantity } : line)));
  const onRemove = (key: string) => changeLines(lines.filter((_, index) => keyOf(index) !== key));
  const onAdd = (variant: ChosenVariant) =>
    changeLines([...lines, { variantId: variant.variantId, quantity: 1 }]);

  const itemsProblem = problems.items ?? null;
  const statusText = busy
    ? 'Saving…'
    : savedAt
      ? `Saved; totals priced by the server at ${formatDateTime(savedAt)}.`
      : `Last changed ${formatDateTime(draft.updatedAt)}.`;

  return (
    <>
      <PageHeader title={`Draft order for ${draft.email}`}>
        <p className="order-meta">
          <StatusBadge status={draft.status} />
          <span className="muted">Created {formatDateTime(draft.createdAt)}</span>
          {open ? (
            <span className="draft-saving muted" role="status">
              {statusText}
            </span>
          ) : null}
          <Link to="/draft-orders">All draft orders</Link>
        </p>
      </PageHeader>
      {placed ? <PlacedNotice placed={placed} /> : null}
      <ErrorBanner error={refusal} />
      {notice && !placed && savedAt === null ? <Notice tone="success">{notice}</Notice> : null}
      {!open && !placed ? (
        <Notice>
          <p>
            This draft {draft.status === 'invoiced' ? 'was invoiced' : 'was completed'} and made its order: it
            no longer changes.
          </p>
        </Notice>
      ) : null}
      {draft.unavailable.length > 0 ? (
        <Notice tone="warning">
          <p>
            {draft.unavailable.length === 1 ? 'An item is' : `${draft.unavailable.length} items are`} no
            longer sold (deleted, or the product is not active): left out of the totals
            {open ? ', and removed at the next change of the items' : ''}.
          </p>
        </Notice>
      ) : null}
      <div className="order-layout">
        <div className="draft-sections">
          <section className="panel orders-panel" aria-labelledby="draft-items-title">
            <h2 id="draft-items-title">Items</h2>
            <ProblemBanner problem={itemsProblem} others={itemsProblem?.fields ?? []} />
            <LinesTable
              lines={shownLines(draft)}
              readOnly={!open}
              busy={busy}
              onQuantity={onQuantity}
              onRemove={onRemove}
            />
            {open ? (
              <VariantPicker
                chosen={new Set(draft.lines.map((line) => line.variantId ?? ''))}
                disabled={busy}
                onAdd={onAdd}
              />
            ) : null}
          </section>
          <section className="panel orders-panel" aria-labelledby="draft-customer-title">
            <h2 id="draft-customer-title">Customer</h2>
            {open ? (
              <>
                <ProblemBanner
                  problem={problems.customer ?? null}
                  others={
                    problems.customer
                      ? unclaimed(problems.customer, (p) => /^\/(customerId|email)/.test(p))
                      : []
                  }
                />
                <CustomerChooser
                  current={{ email: draft.email }}
                  error={fieldMessage(problems.customer ?? null, '/customerId', 'The customer')}
                  emailError={fieldMessage(problems.customer ?? null, '/email', 'The email')}
                  disabled={busy}
                  onChoose={(buyer) => buyer && save('customer', buyerBody(buyer))}
                />
              </>
            ) : (
              <p>{draft.email}</p>
            )}
            <p>
              <Link to={`/customers/${draft.customerId}`}>View customer</Link>
            </p>
          </section>
          <section className="panel orders-panel" aria-labelledby="draft-address-title">
            <h2 id="draft-address-title">Shipping address</h2>
            {open ? (
              <AddressSection
                key={`address-${formVersion}`}
                draft={draft}
                busy={busy}
                problem={problems.address ?? null}
                onSave={(address) => save('address', { shippingAddress: address }, { resetForms: true })}
                onRemove={() => save('address', { shippingAddress: null }, { resetForms: true })}
              />
            ) : draft.shippingAddress ? (
              <PostalAddress address={draft.shippingAddress} />
            ) : (
              <p className="muted">None</p>
            )}
          </section>
          <section className="panel orders-panel" aria-labelledby="draft-shipping-title">
            <h2 id="draft-shipping-title">Shipping</h2>
            {open ? (
              <ShippingForm
                key={`shipping-${formVersion}`}
                draft={draft}
                busy={busy}
                problem={problems.shipping ?? null}
                onSave={(patch) => save('shipping', patch)}
              />
            ) : (
              <p>{draft.shipping ? draft.shipping.name : 'None'}</p>
            )}
          </section>
          {open ? (
            <section className="panel orders-panel" aria-labelledby="draft-discount-title">
              <h2 id="draft-discount-title">Discount</h2>
              <DiscountForm
                key={`discount-${formVersion}-${draft.discount ? 'on' : 'off'}`}
                draft={draft}
                busy={busy}
                problem={problems.discount ?? null}
                onSave={(patch) => save('discount', patch)}
              />
            </section>
          ) : null}
        </div>
        <aside className="draft-side" aria-label="Totals and actions">
          <Totals draft={draft} />
          {open ? (
            <DraftActions
              draft={draft}
              canComplete={session.data?.staff.role !== 'staff'}
              onPlaced={setPlaced}
              onRefused={setRefusal}
              onDeleted={() =>
                void navigate('/draft-orders', {
                  state: { notice: `The draft for ${draft.email} is deleted.` },
                })
              }
            />
          ) : (
            <DraftOrderOutcome
              draft={draft}
              canComplete={session.data?.staff.role !== 'staff'}
              onPlaced={setPlaced}
              onRefused={setRefusal}
            />
          )}
        </aside>
      </div>
    </>
  );
}
