/**
 * Collections: the list, and the form (create at /collections/new, edit at /collections/:id).
 * Manual collections hold products in the merchant's order: drag to reorder (dnd-kit, with the
 * keyboard too) or use Move up / Move down, add products by search. Smart collections pick products
 * by rules; the preview asks the server which products the rules match now (the same rule engine
 * the collection uses, POST /admin/v1/collections/preview).
 */
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { useAdmin } from '../session.tsx';
import { useStoreSettings } from '../store.ts';
import {
  ConfirmButton,
  DataTable,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  Pager,
  ProblemBanner,
  SelectField,
  StatusBadge,
  TextField,
  useCursorPager,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { MoneyField } from '../ui/money-field.tsx';
import { formatMoney } from '../ui/money.ts';
import {
  fieldMessage,
  isStatus,
  localProblem,
  toFormProblem,
  unclaimed,
  type FormProblem,
} from '../ui/problems.ts';
import { FORM_RECORD, QueryView, readingForForm } from '../ui/queries.tsx';
import { useDebounced } from '../ui/search.tsx';
import {
  priceRange,
  slugify,
  Thumb,
  type AdminCollection,
  type AdminProduct,
  type Condition,
  type Rules,
} from './catalog-parts.tsx';
import './catalog.css';

const PAGE_SIZE = 20;

type Field = Condition['field'];
type Op = Condition['op'];

const FIELDS: { value: Field; label: string }[] = [
  { value: 'tag', label: 'Tag' },
  { value: 'title', label: 'Title' },
  { value: 'priceAmount', label: 'Price' },
];

/** The operators each field takes (the server's rule: tag and title eq|contains, price eq|gt|lt). */
const OPS: Record<Field, { value: Op; label: string }[]> = {
  tag: [
    { value: 'eq', label: 'is equal to' },
    { value: 'contains', label: 'contains' },
  ],
  title: [
    { value: 'eq', label: 'is equal to' },
    { value: 'contains', label: 'contains' },
  ],
  priceAmount: [
    { value: 'eq', label: 'is equal to' },
    { value: 'gt', label: 'is greater than' },
    { value: 'lt', label: 'is less than' },
  ],
};

/** "Tag is equal to summer and Price is less than $50.00". */
function describeRules(rules: Rules, currency: string): string {
  return rules.conditions
    .map((condition) => {
      const field = FIELDS.find((f) => f.value === condition.field)?.label ?? condition.field;
      const op = OPS[condition.field].find((o) => o.value === condition.op)?.label ?? condition.op;
      const value =
        condition.field === 'priceAmount'
          ? formatMoney(Number(condition.value), currency)
          : `“${condition.value}”`;
      return `${field} ${op} ${value}`;
    })
    .join(rules.match === 'all' ? ' and ' : ' or ');
}

function useArrivalNotice(): string | null {
  const state = useLocation().state as { notice?: string } | null;
  return state?.notice ?? null;
}

// ---- The list ----

export function CollectionsList() {
  const admin = useAdmin();
  const pager = useCursorPager();
  const currency = useStoreSettings().data?.currency ?? 'USD';
  const notice = useArrivalNotice();
  const collections = useQuery({
    queryKey: ['collections', 'list', pager.cursor],
    queryFn: () =>
      admin.request('adminListCollections', {
        query: { limit: PAGE_SIZE, ...(pager.cursor ? { cursor: pager.cursor } : {}) },
      }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader
        title="Collections"
        actions={
          <Link className="button primary" to="/collections/new">
            Add collection
          </Link>
        }
      >
        <p className="muted">
          Group products for the shop: pick them by hand, or by rules that keep the group current.
        </p>
      </PageHeader>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <QueryView
        query={collections}
        loading="Loading collections…"
        empty={
          <p>
            No collections yet. <Link to="/collections/new">Add your first collection</Link>.
          </p>
        }
      >
        {(data) => (
          <DataTable caption="Collections" columns={['Collection', 'Type', 'Products', 'Address', 'Updated']}>
            {data.items.map((collection) => (
              <tr key={collection.id}>
                <td>
                  <Link to={`/collections/${collection.id}`}>{collection.title}</Link>
                </td>
                <td>{collection.kind === 'manual' ? 'Manual' : 'Smart'}</td>
                <td>
                  {collection.kind === 'manual'
                    ? `${collection.productIds?.length ?? 0} product${collection.productIds?.length === 1 ? '' : 's'}`
                    : collection.rules
                      ? describeRules(collection.rules, currency)
                      : '—'}
                </td>
                <td>
                  <code>/collections/{collection.slug}</code>
                </td>
                <td>{formatDateTime(collection.updatedAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryView>
      {collections.data ? <Pager pager={pager} nextCursor={collections.data.nextCursor} /> : null}
    </>
  );
}

// ---- The form ----

interface ConditionDraft {
  key: string;
  field: Field;
  op: Op;
  /** The value of tag and title conditions. */
  text: string;
  /** The value of price conditions, in minor units. */
  amount: number | null;
  amountProblem: string | null;
}

interface RulesDraft {
  match: Rules['match'];
  conditions: ConditionDraft[];
}

let conditionKeys = 0;
const newCondition = (): ConditionDraft => ({
  key: `c${++conditionKeys}`,
  field: 'tag',
  op: 'eq',
  text: '',
  amount: null,
  amountProblem: null,
});

function rulesDraft(rules: Rules | null): RulesDraft {
  if (!rules) return { match: 'all', conditions: [newCondition()] };
  return {
    match: rules.match,
    conditions: rules.conditions.map((condition) => ({
      ...newCondition(),
      field: condition.field,
      op: condition.op,
      text: condition.field === 'priceAmount' ? '' : String(condition.value),
      amount: condition.field === 'priceAmount' ? Number(condition.value) : null,
    })),
  };
}

/** The rules to send, or null while a condition is incomplete. */
function toRules(draft: RulesDraft): Rules | null {
  const conditions: Condition[] = [];
  for (const c of draft.conditions) {
    if (c.field === 'priceAmount') {
      if (c.amount === null || c.amountProblem) return null;
      conditions.push({ field: c.field, op: c.op, value: c.amount });
    } else {
      if (c.text.trim() === '') return null;
      conditions.push({ field: c.field, op: c.op, value: c.text.trim() });
    }
  }
  return conditions.length > 0 ? { match: draft.match, conditions } : null;
}

const SLUG = /^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$/;

export function CollectionEdit() {
  const { id } = useParams();
  const admin = useAdmin();
  const settings = useStoreSettings();
  const collection = useQuery({
    queryKey: ['collections', 'one', id],
    queryFn: () => admin.request('adminGetCollection', { path: { id: id! } }),
    enabled: id !== undefined,
    ...FORM_RECORD,
  });
  const members = useQuery({
    queryKey: ['collections', 'members', id],
    queryFn: async () => {
      const products: AdminProduct[] = [];
      for await (const product of admin.list('adminListCollectionProducts', {
        path: { id: id! },
        query: { limit: 100 },
      })) {
        products.push(product);
      }
      return products;
    },
    enabled: id !== undefined && collection.data?.kind === 'manual',
    ...FORM_RECORD,
  });

  const pending =
    settings.isPending ||
    (id !== undefined &&
      (readingForForm(collection) || (collection.data?.kind === 'manual' && readingForForm(members))));
  if (pending) {
    return (
      <>
        <PageHeader title={id ? 'Collection' : 'Add collection'} />
        <Loading />
      </>
    );
  }
  if (settings.isError) return <ErrorBanner error={settings.error} onRetry={() => void settings.refetch()} />;
  if (id !== undefined && collection.isError) {
    const missing = isStatus(collection.error, 404);
    return (
      <>
        <PageHeader title={missing ? 'Collection not found' : 'Collection'} />
        {missing ? (
          <p>
            This collection does not exist (it may have been deleted).{' '}
            <Link to="/collections">Back to collections</Link>.
          </p>
        ) : (
          <ErrorBanner error={collection.error} onRetry={() => void collection.refetch()} />
        )}
      </>
    );
  }
  if (members.isError) {
    return (
      <>
        <PageHeader title={collection.data?.title ?? 'Collection'} />
        <ErrorBanner error={members.error} onRetry={() => void members.refetch()} />
      </>
    );
  }
  return (
    <CollectionForm
      key={id ?? 'new'}
      initial={id !== undefined ? (collection.data ?? null) : null}
      initialMembers={members.data ?? []}
      currency={settings.data.currency}
    />
  );
}

function CollectionForm({
  initial,
  initialMembers,
  currency,
}: {
  initial: AdminCollection | null;
  initialMembers: AdminProduct[];
  currency: string;
}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const arrival = useArrivalNotice();
  const [saved, setSaved] = useState<AdminCollection | null>(initial);
  const [title, setTitle] = useState(initial?.title ?? '');
  const [slug, setSlug] = useState(initial?.slug ?? '');
  const [slugEdited, setSlugEdited] = useState(initial !== null);
  const [kind, setKind] = useState<AdminCollection['kind']>(initial?.kind ?? 'manual');
  const [members, setMembers] = useState<AdminProduct[]>(initialMembers);
  const [rules, setRules] = useState<RulesDraft>(() => rulesDraft(initial?.rules ?? null));
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [notice, setNotice] = useState<string | null>(arrival);
  const [busy, setBusy] = useState(false);
  const banner = useRef<HTMLDivElement>(null);

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);

  function fail(next: FormProblem) {
    setProblem(next);
    setNotice(null);
    setTimeout(() => {
      const invalid = document.querySelector<HTMLElement>('main [aria-invalid="true"]');
      (invalid ?? banner.current)?.focus();
    });
  }

  function check(): FormProblem | null {
    const fields: FormProblem['fields'] = [];
    if (title.trim() === '') fields.push({ pointer: '/title', detail: 'Enter a title.' });
    if (!SLUG.test(slug)) {
      fields.push({
        pointer: '/slug',
        detail: 'Use lowercase letters, digits and dashes (not at the start or end), like summer-sale.',
      });
    }
    if (kind === 'smart') {
      rules.conditions.forEach((c, i) => {
        if (c.field === 'priceAmount' && (c.amount === null || c.amountProblem)) {
          fields.push({
            pointer: `/rules/conditions/${i}/value`,
            detail: c.amountProblem ?? 'Enter an amount.',
          });
        }
        if (c.field !== 'priceAmount' && c.text.trim() === '') {
          fields.push({ pointer: `/rules/conditions/${i}/value`, detail: 'Enter a value.' });
        }
      });
      if (rules.conditions.length === 0)
        fields.push({ pointer: '/rules/conditions', detail: 'Add at least one condition.' });
    }
    return fields.length > 0 ? localProblem('Some fields need your attention.', fields) : null;
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const local = check();
    if (local) return fail(local);
    const sendRules = kind === 'smart' ? toRules(rules)! : undefined;
    const productIds = kind === 'manual' ? members.map((p) => p.id) : undefined;
    setBusy(true);
    setNotice(null);
    try {
      if (!saved) {
        const created = await admin.request('adminCreateCollection', {
          body: {
            title: title.trim(),
            slug,
            kind,
            ...(productIds ? { productIds } : {}),
            ...(sendRules ? { rules: sendRules } : {}),
          },
        });
        await queryClient.invalidateQueries({ queryKey: ['collections'] });
        void navigate(`/collections/${created.id}`, {
          replace: true,
          state: { notice: `Created “${created.title}”.` },
        });
        return;
      }
      const updated = await admin.request('adminUpdateCollection', {
        path: { id: saved.id },
        body: {
          title: title.trim(),
          slug,
          ...(productIds ? { productIds } : {}),
          ...(sendRules ? { rules: sendRules } : {}),
        },
      });
      queryClient.setQueryData(['collections', 'one', saved.id], updated);
      queryClient.setQueryData(['collections', 'members', saved.id], members);
      await queryClient.invalidateQueries({ queryKey: ['collections', 'list'] });
      setSaved(updated);
      setProblem(null);
      setNotice('Saved.');
    } catch (error) {
      fail(toFormProblem(error));
    } finally {
      setBusy(false);
    }
  }

  async function remove(collection: AdminCollection) {
    setBusy(true);
    try {
      await admin.request('adminDeleteCollection', { path: { id: collection.id } });
      queryClient.removeQueries({ queryKey: ['collections', 'one', collection.id] });
      await queryClient.invalidateQueries({ queryKey: ['collections', 'list'] });
      void navigate('/collections', { state: { notice: `Deleted “${collection.title}”.` } });
    } catch (error) {
      fail(toFormProblem(error));
      setBusy(false);
    }
  }

  const shown = (pointer: string) =>
    /^\/(title|slug|kind)(\/|$)/.test(pointer) ||
    (kind === 'smart' && /^\/rules\/conditions\/\d+/.test(pointer)) ||
    (kind === 'manual' && /^\/productIds\/\d+/.test(pointer));

  return (
    <>
      <PageHeader
        title={saved ? saved.title : 'Add collection'}
        actions={
          saved ? (
            <ConfirmButton
              title={`Delete “${saved.title}”?`}
              body={<p>The collection leaves the shop. Its products are not deleted.</p>}
              confirmLabel="Delete collection"
              onConfirm={() => void remove(saved)}
              disabled={busy}
            >
              Delete collection
            </ConfirmButton>
          ) : null
        }
      >
        <p className="muted">
          <Link to="/collections">Collections</Link>
          {saved
            ? ` · ${saved.kind === 'manual' ? 'Manual' : 'Smart'} · updated ${formatDateTime(saved.updatedAt)}`
            : null}
        </p>
      </PageHeader>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <div ref={banner} tabIndex={-1} className="banner-anchor">
        <ProblemBanner problem={problem} others={problem ? unclaimed(problem, shown) : []} />
      </div>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <section className="panel" aria-labelledby="collection-details">
          <h2 id="collection-details">Details</h2>
          <TextField
            label="Title"
            name="title"
            value={title}
            maxLength={200}
            error={at('/title', 'The title')}
            onChange={(event) => {
              setTitle(event.target.value);
              if (!slugEdited) setSlug(slugify(event.target.value, 100));
            }}
          />
          <TextField
            label="Handle"
            name="slug"
            value={slug}
            maxLength={100}
            hint={`The collection's address in the shop: /collections/${slug || '…'}`}
            error={at('/slug', 'The handle')}
            onChange={(event) => {
              setSlug(event.target.value);
              setSlugEdited(true);
            }}
          />
          {saved ? null : (
            <fieldset className="kind">
              <legend>Type</legend>
              <label className="checkbox">
                <input
                  type="radio"
                  name="kind"
                  value="manual"
                  checked={kind === 'manual'}
                  onChange={() => setKind('manual')}
                />
                Manual: you choose the products and their order
              </label>
              <label className="checkbox">
                <input
                  type="radio"
                  name="kind"
                  value="smart"
                  checked={kind === 'smart'}
                  onChange={() => setKind('smart')}
                />
                Smart: products that match rules join automatically
              </label>
            </fieldset>
          )}
        </section>

        {kind === 'manual' ? (
          <ManualProducts members={members} onChange={setMembers} problem={problem} />
        ) : (
          <SmartRules rules={rules} onChange={setRules} currency={currency} saveProblem={problem} />
        )}

        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : saved ? 'Save collection' : 'Create collection'}
          </button>
          <Link to="/collections">Cancel</Link>
        </div>
      </form>
    </>
  );
}

// ---- Manual: the ordered products ----

function ManualProducts({
  members,
  onChange,
  problem,
}: {
  members: AdminProduct[];
  onChange: (members: AdminProduct[]) => void;
  problem: FormProblem | null;
}) {
  const [announcement, setAnnouncement] = useState('');
  const [focusAfter, setFocusAfter] = useState<{ id: string; button: 'up' | 'down' } | null>(null);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  // After a Move up/down, keep focus on the moved product's button (or its other one at an end).
  useEffect(() => {
    if (!focusAfter) return;
    const wanted = document.getElementById(
      `move-${focusAfter.button}-${focusAfter.id}`,
    ) as HTMLButtonElement | null;
    const other = document.getElementById(
      `move-${focusAfter.button === 'up' ? 'down' : 'up'}-${focusAfter.id}`,
    ) as HTMLButtonElement | null;
    (wanted && !wanted.disabled ? wanted : other)?.focus();
    setFocusAfter(null);
  }, [focusAfter]);

  const titleOf = (id: UniqueIdentifier) => members.find((p) => p.id === id)?.title ?? 'The product';
  const positionOf = (id: UniqueIdentifier) => members.findIndex((p) => p.id === id) + 1;
  const count = members.length;
  const announcements: Announcements = {
    onDragStart: ({ active }) =>
      `Picked up ${titleOf(active.id)}, at position ${positionOf(active.id)} of ${count}.`,
    onDragOver: ({ active, over }) =>
      over ? `${titleOf(active.id)} is over position ${positionOf(over.id)} of ${count}.` : undefined,
    onDragEnd: ({ active, over }) =>
      over
        ? `${titleOf(active.id)} dropped at position ${positionOf(over.id)} of ${count}.`
        : `${titleOf(active.id)} dropped.`,
    onDragCancel: ({ active }) =>
      `Moving cancelled. ${titleOf(active.id)} stays at position ${positionOf(active.id)} of ${count}.`,
  };

  function move(from: number, to: number, button?: 'up' | 'down') {
    if (to < 0 || to >= members.length || from === to) return;
    const product = members[from]!;
    onChange(arrayMove(members, from, to));
    if (button) {
      setAnnouncement(`${product.title} moved to position ${to + 1} of ${members.length}.`);
      setFocusAfter({ id: product.id, button });
    }
  }

  function onDragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id) return;
    move(positionOf(active.id) - 1, positionOf(over.id) - 1);
  }

  return (
    <section className="panel" aria-labelledby="collection-products">
      <h2 id="collection-products">Products</h2>
      <p className="hint" id="order-help">
        The shop lists them in this order. Drag a product by its handle, or focus the handle and press Space,
        then the arrow keys, then Space again; or use Move up and Move down. Save to keep the order.
      </p>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {members.length === 0 ? (
        <p className="muted">No products yet. Find products below and add them.</p>
      ) : (
        <DndContext
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={onDragEnd}
          accessibility={{
            announcements,
            screenReaderInstructions: {
              draggable:
                'To move a product, press Space or Enter to pick it up, the up and down arrow keys to move it, Space or Enter to drop it, or Escape to cancel.',
            },
          }}
        >
          <SortableContext items={members.map((p) => p.id)} strategy={verticalListSortingStrategy}>
            <ol className="sortable" aria-label="Products in this collection, in order">
              {members.map((product, index) => (
                <MemberRow
                  key={product.id}
                  product={product}
                  index={index}
                  count={members.length}
                  error={fieldMessage(problem, `/productIds/${index}`, 'This product')}
                  onMove={(to, button) => move(index, to, button)}
                  onRemove={() => {
                    onChange(members.filter((p) => p.id !== product.id));
                    setAnnouncement(`${product.title} removed from the collection.`);
                  }}
                />
              ))}
            </ol>
          </SortableContext>
        </DndContext>
      )}
      <ProductPicker
        members={members}
        onAdd={(product) => {
          onChange([...members, product]);
          setAnnouncement(`${product.title} added at position ${members.length + 1}.`);
        }}
      />
    </section>
  );
}

function MemberRow({
  product,
  index,
  count,
  error,
  onMove,
  onRemove,
}: {
  product: AdminProduct;
  index: number;
  count: number;
  error: string | undefined;
  onMove: (to: number, button: 'up' | 'down') => void;
  onRemove: () => void;
}) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } =
    useSortable({ id: product.id });
  return (
    <li
      ref={setNodeRef}
      className={`sortable-item${isDragging ? ' dragging' : ''}${error ? ' invalid' : ''}`}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      data-product-id={product.id}
    >
      <button
        type="button"
        className="drag-handle"
        ref={setActivatorNodeRef}
        {...attributes}
        {...listeners}
        aria-label={`Drag ${product.title}`}
      >
        <span aria-hidden="true">⠿</span>
      </button>
      <span className="position" aria-hidden="true">
        {index + 1}.
      </span>
      <Thumb image={product.image} />
      <span className="member-title">
        <Link to={`/products/${product.id}`}>{product.title}</Link>{' '}
        {product.status === 'active' ? null : <StatusBadge status={product.status} />}
        {error ? <span className="field-error"> {error}</span> : null}
      </span>
      <span className="member-actions">
        <button
          type="button"
          id={`move-up-${product.id}`}
          onClick={() => onMove(index - 1, 'up')}
          disabled={index === 0}
        >
          Move<span className="visually-hidden"> {product.title}</span> up
        </button>
        <button
          type="button"
          id={`move-down-${product.id}`}
          onClick={() => onMove(index + 1, 'down')}
          disabled={index === count - 1}
        >
          Move<span className="visually-hidden"> {product.title}</span> down
        </button>
        <button type="button" className="danger" onClick={onRemove}>
          Remove<span className="visually-hidden"> {product.title}</span>
        </button>
      </span>
    </li>
  );
}

function ProductPicker({
  members,
  onAdd,
}: {
  members: AdminProduct[];
  onAdd: (product: AdminProduct) => void;
}) {
  const admin = useAdmin();
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 250);
  const results = useQuery({
    queryKey: ['products', 'list', { q, status: '', cursor: undefined, limit: 8 }],
    queryFn: () => admin.products.list({ limit: 8, ...(q ? { q } : {}) }),
    placeholderData: keepPreviousData,
  });
  const inCollection = new Set(members.map((p) => p.id));
  return (
    <div className="picker">
      <h3>Add products</h3>
      <TextField
        label="Find products"
        type="search"
        value={text}
        placeholder="Title or SKU"
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          // Enter searches; it must not submit the collection form.
          if (event.key === 'Enter') event.preventDefault();
        }}
      />
      <QueryView query={results} loading="Searching…">
        {(data) =>
          data.items.length === 0 ? (
            <p className="muted" role="status">
              {q ? `No products match “${q}”.` : 'Your store has no products yet.'}
            </p>
          ) : (
            <ul className="picker-results" aria-label="Search results">
              {data.items.map((product) => {
                const added = inCollection.has(product.id);
                return (
                  <li key={product.id}>
                    <Thumb image={product.image} />
                    <span className="member-title">
                      {product.title} <span className="muted">{priceRange(product)}</span>{' '}
                      {product.status === 'active' ? null : <StatusBadge status={product.status} />}
                    </span>
                    <button type="button" onClick={() => onAdd(product)} disabled={added}>
                      {added ? (
                        <>
                          Added
                          <span className="visually-hidden"> ({product.title} is in the collection)</span>
                        </>
                      ) : (
                        <>
                          Add<span className="visually-hidden"> {product.title}</span>
                        </>
                      )}
                    </button>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryView>
    </div>
  );
}

// ---- Smart: the rules and their live preview ----

function SmartRules({
  rules,
  onChange,
  currency,
  saveProblem,
}: {
  rules: RulesDraft;
  onChange: (rules: RulesDraft) => void;
  currency: string;
  saveProblem: FormProblem | null;
}) {
  const admin = useAdmin();
  const complete = toRules(rules);
  const settled = useDebounced(complete ? JSON.stringify(complete) : null, 400);
  const preview = useQuery({
    queryKey: ['collections', 'preview', settled],
    queryFn: () =>
      admin.request('adminPreviewCollection', { body: { rules: JSON.parse(settled!) as Rules, limit: 20 } }),
    enabled: settled !== null,
    placeholderData: keepPreviousData,
  });
  const previewProblem = preview.isError ? toFormProblem(preview.error) : null;
  const problem = saveProblem ?? previewProblem;

  const updateCondition = (key: string, changes: Partial<ConditionDraft>) =>
    onChange({
      ...rules,
      conditions: rules.conditions.map((c) => (c.key === key ? { ...c, ...changes } : c)),
    });

  return (
    <div className="smart-layout">
      <section className="panel" aria-labelledby="collection-rules">
        <h2 id="collection-rules">Conditions</h2>
        <SelectField
          label="Products must match"
          value={rules.match}
          options={[
            { value: 'all', label: 'all conditions' },
            { value: 'any', label: 'any condition' },
          ]}
          onChange={(event) => onChange({ ...rules, match: event.target.value as Rules['match'] })}
        />
        {rules.conditions.map((condition, index) => {
          const base = `/rules/conditions/${index}`;
          const name = `Condition ${index + 1}`;
          return (
            <fieldset key={condition.key} className="condition">
              <legend>{name}</legend>
              <div className="condition-grid">
                <SelectField
                  label="Field"
                  value={condition.field}
                  options={FIELDS}
                  error={fieldMessage(problem, `${base}/field`, 'The field')}
                  onChange={(event) => {
                    const field = event.target.value as Field;
                    const op = OPS[field].some((o) => o.value === condition.op) ? condition.op : 'eq';
                    updateCondition(condition.key, { field, op });
                  }}
                />
                <SelectField
                  label="Operator"
                  value={condition.op}
                  options={OPS[condition.field]}
                  error={fieldMessage(problem, `${base}/op`, 'The operator')}
                  onChange={(event) => updateCondition(condition.key, { op: event.target.value as Op })}
                />
                {condition.field === 'priceAmount' ? (
                  <MoneyField
                    label="Amount"
                    currency={currency}
                    value={condition.amount}
                    hint="Compared with the product's lowest variant price."
                    error={fieldMessage(problem, `${base}/value`, 'The amount')}
                    onChange={(amount, amountProblem) =>
                      updateCondition(condition.key, { amount, amountProblem })
                    }
                  />
                ) : (
                  <TextField
                    label="Value"
                    value={condition.text}
                    maxLength={200}
                    hint={condition.field === 'tag' ? 'Any case: Summer matches summer.' : 'Any case.'}
                    error={fieldMessage(problem, `${base}/value`, 'The value')}
                    onChange={(event) => updateCondition(condition.key, { text: event.target.value })}
                  />
                )}
              </div>
              <button
                type="button"
                className="danger"
                disabled={rules.conditions.length === 1}
                onClick={() =>
                  onChange({ ...rules, conditions: rules.conditions.filter((c) => c.key !== condition.key) })
                }
              >
                Remove condition {index + 1}
              </button>
            </fieldset>
          );
        })}
        <button
          type="button"
          disabled={rules.conditions.length >= 20}
          onClick={() => onChange({ ...rules, conditions: [...rules.conditions, newCondition()] })}
        >
          Add condition
        </button>
        {rules.conditions.length >= 20 ? (
          <p className="hint">A collection takes at most 20 conditions.</p>
        ) : null}
      </section>

      <section className="panel preview" aria-labelledby="collection-preview">
        <h2 id="collection-preview">Preview</h2>
        <div role="status" className="preview-summary">
          {complete === null ? (
            <p className="muted">Complete every condition to see which products match.</p>
          ) : preview.isPending || settled !== JSON.stringify(complete) ? (
            <p className="muted">Finding matching products…</p>
          ) : preview.isError ? (
            <p>The preview is not available: {previewProblem?.message}</p>
          ) : (
            <p>
              <strong>
                {preview.data.total} product{preview.data.total === 1 ? '' : 's'}
              </strong>{' '}
              match{preview.data.total === 1 ? 'es' : ''} {describeRules(complete, currency)}.
              {preview.data.total > preview.data.items.length
                ? ` The first ${preview.data.items.length} are shown.`
                : ''}
            </p>
          )}
        </div>
        {complete !== null && preview.data && preview.data.items.length > 0 ? (
          <ul className="preview-list" aria-label="Matching products">
            {preview.data.items.map((product) => (
              <li key={product.id}>
                <Thumb image={product.image} />
                <span className="member-title">
                  <Link to={`/products/${product.id}`}>{product.title}</Link>{' '}
                  {product.status === 'active' ? null : <StatusBadge status={product.status} />}
                </span>
                <span className="muted">{priceRange(product)}</span>
              </li>
            ))}
          </ul>
        ) : null}
        <p className="hint">
          Drafts and archived products match too, but only active ones appear in the shop.
        </p>
      </section>
    </div>
  );
}
