/**
 * Products: the list (search by title or SKU, status filter, cursor pages) and the product form
 * (create at /products/new, edit at /products/:id) with its handle and SEO fields (D46) and its
 * variants (their stock, weight and whether they are shipped). Prices are typed as decimals in the
 * store currency and sent as exact minor units (MoneyField); API problems are shown at the fields
 * they concern.
 */
import { useQuery, useQueryClient, keepPreviousData } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { useAdmin } from '../session.tsx';
import { useStoreSettings } from '../store.ts';
import {
  ConfirmButton,
  DataTable,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  Pager,
  ProblemBanner,
  SelectField,
  StatusBadge,
  TextAreaField,
  TextField,
  useCursorPager,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { MoneyField } from '../ui/money-field.tsx';
import {
  fieldMessage,
  isStatus,
  localProblem,
  toFormProblem,
  unclaimed,
  type FormProblem,
} from '../ui/problems.ts';
import { FORM_RECORD, QueryView, readingForForm } from '../ui/queries.tsx';
import { SearchForm, useUrlSearch } from '../ui/search.tsx';
import {
  ImagePreview,
  imageProblem,
  priceRange,
  slugify,
  STATUS_OPTIONS,
  stockSummary,
  Thumb,
  type AdminProduct,
  type AdminVariant,
  type ProductStatus,
} from './catalog-parts.tsx';
import './catalog.css';

const PAGE_SIZE = 20;

/** A message handed to the next screen through the router's state (after a create or a delete). */
function useArrivalNotice(): string | null {
  const location = useLocation();
  const state = location.state as { notice?: string } | null;
  return state?.notice ?? null;
}

// ---- The list ----

export function ProductsList() {
  const [params, setParams] = useSearchParams();
  const search = useUrlSearch();
  const { q } = search;
  const status = params.get('status') ?? '';
  const notice = useArrivalNotice();

  return (
    <>
      <PageHeader
        title="Products"
        actions={
          <Link className="button primary" to="/products/new">
            Add product
          </Link>
        }
      />
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <SearchForm label="Products" placeholder="Title or SKU" search={search}>
        <SelectField
          label="Status"
          name="status"
          value={status}
          options={[{ value: '', label: 'All' }, ...STATUS_OPTIONS]}
          onChange={(event) => {
            const next = new URLSearchParams(params);
            if (event.target.value) next.set('status', event.target.value);
            else next.delete('status');
            setParams(next, { replace: true });
          }}
        />
      </SearchForm>
      {/* A new search or filter starts again at page 1 (a cursor belongs to its search). */}
      <ProductsTable key={`${q}\n${status}`} q={q} status={status as ProductStatus | ''} />
    </>
  );
}

function ProductsTable({ q, status }: { q: string; status: ProductStatus | '' }) {
  const admin = useAdmin();
  const pager = useCursorPager();
  const products = useQuery({
    queryKey: ['products', 'list', { q, status, cursor: pager.cursor }],
    queryFn: () =>
      admin.products.list({
        limit: PAGE_SIZE,
        ...(q ? { q } : {}),
        ...(status ? { status } : {}),
        ...(pager.cursor ? { cursor: pager.cursor } : {}),
      }),
    placeholderData: keepPreviousData,
  });

  const filtered = q !== '' || status !== '';
  return (
    <QueryView query={products} loading="Loading products…">
      {({ items, nextCursor }) => (
        <>
          <p className="visually-hidden" role="status">
            {items.length === 0
              ? 'No products found.'
              : `${items.length} product${items.length === 1 ? '' : 's'} on this page.`}
          </p>
          {items.length === 0 ? (
            <Empty>
              {filtered ? (
                <p>
                  No products match{q ? ` “${q}”` : ''}
                  {status ? ` with the status ${status}` : ''}. Try another search or filter.
                </p>
              ) : (
                <p>
                  No products yet. <Link to="/products/new">Add your first product</Link>.
                </p>
              )}
            </Empty>
          ) : (
            <DataTable
              caption="Products"
              columns={[
                { label: <span className="visually-hidden">Image</span> },
                'Product',
                'Status',
                'Inventory',
                'SKU',
                { label: 'Price', num: true },
                'Updated',
              ]}
              busy={products.isFetching}
            >
              {items.map((product) => {
                const skus = product.variants.map((v) => v.sku).filter((sku): sku is string => !!sku);
                return (
                  <tr key={product.id}>
                    <td className="thumb-cell">
                      <Thumb image={product.image} />
                    </td>
                    <td>
                      <Link to={`/products/${product.id}`}>{product.title}</Link>
                      <div className="muted small">
                        <span className="visually-hidden">Handle: </span>
                        {product.handle}
                      </div>
                      {product.tags.length > 0 ? (
                        <div className="muted small">{product.tags.join(', ')}</div>
                      ) : null}
                    </td>
                    <td>
                      <StatusBadge status={product.status} />
                    </td>
                    <td>{stockSummary(product)}</td>
                    <td>
                      {skus.length === 0 ? (
                        <span className="muted">—</span>
                      ) : (
                        <>
                          <code>{skus[0]}</code>
                          {skus.length > 1 ? <span className="muted"> +{skus.length - 1}</span> : null}
                        </>
                      )}
                    </td>
                    <td className="num">{priceRange(product)}</td>
                    <td>{formatDateTime(product.updatedAt)}</td>
                  </tr>
                );
              })}
            </DataTable>
          )}
          <Pager pager={pager} nextCursor={nextCursor} />
        </>
      )}
    </QueryView>
  );
}

// ---- The form ----

interface VariantDraft {
  /** A stable key for React (the id once saved). */
  key: string;
  /** The saved variant this row edits; undefined for a new row. */
  saved?: AdminVariant;
  label: string;
  sku: string;
  priceAmount: number | null;
  priceProblem: string | null;
  compareAtAmount: number | null;
  compareAtProblem: string | null;
  onHand: string;
  /** Grams as typed; empty when not given. */
  weight: string;
  requiresShipping: boolean;
}

interface ProductDraft {
  title: string;
  /** As typed; on create, empty lets the server make one from the title. */
  handle: string;
  description: string;
  /** The SEO fields as typed; empty is none. */
  seoTitle: string;
  seoDescription: string;
  status: ProductStatus;
  image: string;
  tags: string;
  variants: VariantDraft[];
  /** Saved variants removed from the form: deleted when the form is saved. */
  removed: AdminVariant[];
}

let newKeys = 0;
const newKey = () => `new-${++newKeys}`;

function variantDraft(variant: AdminVariant): VariantDraft {
  return {
    key: variant.id,
    saved: variant,
    label: variant.label,
    sku: variant.sku ?? '',
    priceAmount: variant.priceAmount,
    priceProblem: null,
    compareAtAmount: variant.compareAtAmount,
    compareAtProblem: null,
    onHand: String(variant.onHand),
    weight: variant.weightGrams === null ? '' : String(variant.weightGrams),
    requiresShipping: variant.requiresShipping,
  };
}

function emptyVariant(label = ''): VariantDraft {
  return {
    key: newKey(),
    label,
    sku: '',
    priceAmount: null,
    priceProblem: null,
    compareAtAmount: null,
    compareAtProblem: null,
    onHand: '0',
    weight: '',
    requiresShipping: true,
  };
}

function productDraft(product: AdminProduct | null): ProductDraft {
  if (!product) {
    return {
      title: '',
      handle: '',
      description: '',
      seoTitle: '',
      seoDescription: '',
      status: 'draft',
      image: '',
      tags: '',
      variants: [emptyVariant('Default')],
      removed: [],
    };
  }
  return {
    title: product.title,
    handle: product.handle,
    description: product.description,
    seoTitle: product.seo.title ?? '',
    seoDescription: product.seo.description ?? '',
    status: product.status,
    image: product.image ?? '',
    tags: product.tags.join(', '),
    variants: product.variants.map(variantDraft),
    removed: [],
  };
}

const parseTags = (text: string): string[] =>
  text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

const ON_HAND = /^\d{1,10}$/;
const GRAMS = /^\d{1,8}$/;

/** A product handle (D46): lower-case letters and digits, single hyphens between them. */
const HANDLE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const HANDLE_MAX = 100;
/** The server makes a handle from at most this many characters of the title. */
const MADE_HANDLE_MAX = 80;
const SEO_TITLE_MAX = 200;
const SEO_DESCRIPTION_MAX = 500;
/** Characters as the server counts them (code points: an emoji is one). */
const characters = (text: string): number => [...text].length;
const shopPath = (handle: string): string => `/shop/products/${handle}`;

/** What is wrong with a handle as typed (trimmed), or null. Blank is fine on create only. */
function handleProblem(handle: string, saved: AdminProduct | null): string | null {
  if (handle === '') return saved ? `Enter a handle (it was “${saved.handle}”).` : null;
  if (handle.length > HANDLE_MAX) return `Use at most ${HANDLE_MAX} characters.`;
  if (HANDLE.test(handle)) return null;
  const suggestion = slugify(handle, HANDLE_MAX);
  return `Use lower-case letters and digits, with single hyphens between words${suggestion ? `, like “${suggestion}”` : ''}.`;
}

/**
 * What the form can tell before sending: blanks, a malformed handle, a long meta description,
 * unreadable amounts and counts, a non-https image.
 */
function checkDraft(draft: ProductDraft, saved: AdminProduct | null): FormProblem | null {
  const fields: FormProblem['fields'] = [];
  if (draft.title.trim() === '') fields.push({ pointer: '/title', detail: 'Enter a title.' });
  const handle = handleProblem(draft.handle.trim(), saved);
  if (handle) fields.push({ pointer: '/handle', detail: handle });
  const seoDescription = characters(draft.seoDescription.trim());
  if (seoDescription > SEO_DESCRIPTION_MAX) {
    fields.push({
      pointer: '/seo/description',
      detail: `Use at most ${SEO_DESCRIPTION_MAX} characters (this has ${seoDescription}).`,
    });
  }
  const image = imageProblem(draft.image);
  if (image) fields.push({ pointer: '/image', detail: image });
  if (draft.status === 'active' && draft.variants.length === 0) {
    fields.push({
      pointer: '/status',
      detail: 'An active product needs at least one variant. Add one first.',
    });
  }
  draft.variants.forEach((variant, i) => {
    const at = `/variants/${i}`;
    if (variant.label.trim() === '')
      fields.push({ pointer: `${at}/label`, detail: 'Enter a label, like “Small”.' });
    if (variant.priceProblem) fields.push({ pointer: `${at}/priceAmount`, detail: variant.priceProblem });
    else if (variant.priceAmount === null)
      fields.push({ pointer: `${at}/priceAmount`, detail: 'Enter a price.' });
    if (variant.compareAtProblem)
      fields.push({ pointer: `${at}/compareAtAmount`, detail: variant.compareAtProblem });
    if (!ON_HAND.test(variant.onHand.trim()) || Number(variant.onHand) > 1_000_000_000) {
      fields.push({ pointer: `${at}/onHand`, detail: 'Enter a whole number of units, 0 or more.' });
    }
    const weight = variant.weight.trim();
    if (weight !== '' && (!GRAMS.test(weight) || Number(weight) > 10_000_000)) {
      fields.push({
        pointer: `${at}/weightGrams`,
        detail: 'Enter a whole number of grams (at most 10,000,000), or leave it empty.',
      });
    }
  });
  return fields.length > 0 ? localProblem('Some fields need your attention.', fields) : null;
}

/** What a new product starts from: no handle given (the server makes one), no SEO fields. */
const UNNAMED = { handle: '', seo: { title: null, description: null } } as const;

/**
 * The handle and SEO fields that differ from `from` (the saved product, or UNNAMED on create), as
 * the API takes them: the handle trimmed, an SEO field trimmed and blank as null (cleared).
 */
function handleAndSeoChanges(draft: ProductDraft, from: Pick<AdminProduct, 'handle' | 'seo'>) {
  const handle = draft.handle.trim();
  const seo: { title?: string | null; description?: string | null } = {};
  const title = draft.seoTitle.trim() || null;
  const description = draft.seoDescription.trim() || null;
  if (title !== from.seo.title) seo.title = title;
  if (description !== from.seo.description) seo.description = description;
  return {
    ...(handle !== from.handle ? { handle } : {}),
    ...(Object.keys(seo).length > 0 ? { seo } : {}),
  };
}

const skuOf = (variant: VariantDraft): string | null => variant.sku.trim() || null;

function newVariantBody(variant: VariantDraft) {
  return {
    label: variant.label.trim(),
    sku: skuOf(variant),
    priceAmount: variant.priceAmount ?? 0,
    compareAtAmount: variant.compareAtAmount,
    onHand: Number(variant.onHand.trim()),
    weightGrams: variant.weight.trim() === '' ? null : Number(variant.weight.trim()),
    requiresShipping: variant.requiresShipping,
  };
}

/** The changed fields of a saved variant, or null when nothing changed. */
function variantChanges(variant: VariantDraft) {
  const saved = variant.saved!;
  const body = newVariantBody(variant);
  const changes: Partial<typeof body> = {};
  if (body.label !== saved.label) changes.label = body.label;
  if (body.sku !== saved.sku) changes.sku = body.sku;
  if (body.priceAmount !== saved.priceAmount) changes.priceAmount = body.priceAmount;
  if (body.compareAtAmount !== saved.compareAtAmount) changes.compareAtAmount = body.compareAtAmount;
  if (body.onHand !== saved.onHand) changes.onHand = body.onHand;
  if (body.weightGrams !== saved.weightGrams) changes.weightGrams = body.weightGrams;
  if (body.requiresShipping !== saved.requiresShipping) changes.requiresShipping = body.requiresShipping;
  return Object.keys(changes).length > 0 ? changes : null;
}

/** A variant call's pointer (`/onHand`, or `/id` in the path) as the form's (`/variants/1/onHand`). */
const underVariant =
  (index: number) =>
  (pointer: string, where: string): string =>
    where === 'path' ? `/variants/${index}` : `/variants/${index}${pointer}`;

export function ProductEdit() {
  const { id } = useParams();
  const admin = useAdmin();
  const settings = useStoreSettings();
  const product = useQuery({
    queryKey: ['products', 'one', id],
    queryFn: () => admin.products.get(id!),
    enabled: id !== undefined,
    ...FORM_RECORD,
  });

  if (settings.isPending || (id !== undefined && readingForForm(product))) {
    return (
      <>
        <PageHeader title={id ? 'Product' : 'Add product'} />
        <Loading />
      </>
    );
  }
  if (settings.isError) return <ErrorBanner error={settings.error} onRetry={() => void settings.refetch()} />;
  if (id !== undefined && product.isError) {
    return (
      <>
        <PageHeader title={isStatus(product.error, 404) ? 'Product not found' : 'Product'} />
        {isStatus(product.error, 404) ? (
          <p>
            This product does not exist (it may have been deleted).{' '}
            <Link to="/products">Back to products</Link>.
          </p>
        ) : (
          <ErrorBanner error={product.error} onRetry={() => void product.refetch()} />
        )}
      </>
    );
  }
  return (
    <ProductForm
      key={id ?? 'new'}
      initial={id !== undefined ? (product.data ?? null) : null}
      currency={settings.data.currency}
    />
  );
}

function ProductForm({ initial, currency }: { initial: AdminProduct | null; currency: string }) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const arrival = useArrivalNotice();
  const [saved, setSaved] = useState<AdminProduct | null>(initial);
  const [draft, setDraft] = useState<ProductDraft>(() => productDraft(initial));
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [notice, setNotice] = useState<string | null>(arrival);
  const [busy, setBusy] = useState(false);
  const banner = useRef<HTMLDivElement>(null);
  const variantsId = useId();

  const update = (changes: Partial<ProductDraft>) => setDraft((d) => ({ ...d, ...changes }));
  const updateVariant = (key: string, changes: Partial<VariantDraft>) =>
    setDraft((d) => ({ ...d, variants: d.variants.map((v) => (v.key === key ? { ...v, ...changes } : v)) }));

  function addVariant() {
    setDraft((d) => ({ ...d, variants: [...d.variants, emptyVariant()] }));
    // Focus the new row's first field once it is rendered.
    setTimeout(() => {
      const rows = document.querySelectorAll<HTMLFieldSetElement>(`[data-variants="${variantsId}"] fieldset`);
      rows[rows.length - 1]?.querySelector('input')?.focus();
    });
  }

  function removeVariant(variant: VariantDraft) {
    setDraft((d) => ({
      ...d,
      variants: d.variants.filter((v) => v.key !== variant.key),
      removed: variant.saved ? [...d.removed, variant.saved] : d.removed,
    }));
    // Problems point at rows by index; they no longer line up.
    setProblem(null);
  }

  function keepVariant(variant: AdminVariant) {
    setDraft((d) => ({
      ...d,
      removed: d.removed.filter((v) => v.id !== variant.id),
      variants: [...d.variants, variantDraft(variant)],
    }));
  }

  function fail(next: FormProblem) {
    setProblem(next);
    setNotice(null);
    // Bring the summary into view; the first invalid field is focused for keyboard users.
    setTimeout(() => {
      const invalid = document.querySelector<HTMLElement>('main [aria-invalid="true"]');
      (invalid ?? banner.current)?.focus();
    });
  }

  async function create(current: ProductDraft) {
    try {
      const created = await admin.products.create({
        title: current.title.trim(),
        description: current.description,
        status: current.status,
        image: current.image.trim() || null,
        tags: parseTags(current.tags),
        ...handleAndSeoChanges(current, UNNAMED),
        variants: current.variants.map(newVariantBody),
      });
      await queryClient.invalidateQueries({ queryKey: ['products'] });
      queryClient.setQueryData(['products', 'one', created.id], created);
      void navigate(`/products/${created.id}`, {
        replace: true,
        state: { notice: `Created “${created.title}”.` },
      });
    } catch (error) {
      fail(toFormProblem(error));
    }
  }

  /**
   * Saves an existing product as a series of calls: the product's fields, new variants, changed
   * variants, removed variants, and a change to active last (it needs the variants first). Each
   * success is kept in the form, so after a failure saving again sends only what is left.
   */
  async function save(current: ProductDraft, product: AdminProduct) {
    const activating = current.status === 'active' && product.status !== 'active';
    let working = current;
    const keep = (next: ProductDraft) => {
      working = next;
      setDraft(next);
    };
    try {
      try {
        await admin.products.update(product.id, {
          title: current.title.trim(),
          description: current.description,
          image: current.image.trim() || null,
          tags: parseTags(current.tags),
          ...handleAndSeoChanges(current, product),
          ...(activating ? {} : { status: current.status }),
        });
      } catch (error) {
        return fail(toFormProblem(error));
      }
      for (const [index, variant] of working.variants.entries()) {
        try {
          let next: AdminVariant | null = null;
          if (!variant.saved) next = await admin.products.addVariant(product.id, newVariantBody(variant));
          else {
            const changes = variantChanges(variant);
            if (changes) next = await admin.products.updateVariant(variant.saved.id, changes);
          }
          if (next) {
            const row = { ...variantDraft(next), key: variant.key };
            keep({ ...working, variants: working.variants.map((v, i) => (i === index ? row : v)) });
          }
        } catch (error) {
          return fail(toFormProblem(error, underVariant(index)));
        }
      }
      for (const variant of working.removed) {
        try {
          await admin.request('adminDeleteVariant', { path: { id: variant.id } });
          keep({ ...working, removed: working.removed.filter((v) => v.id !== variant.id) });
        } catch (error) {
          return fail(toFormProblem(error, () => '/variants'));
        }
      }
      if (activating) {
        try {
          await admin.products.update(product.id, { status: 'active' });
        } catch (error) {
          return fail(toFormProblem(error));
        }
      }
      const fresh = await admin.products.get(product.id);
      queryClient.setQueryData(['products', 'one', product.id], fresh);
      setSaved(fresh);
      setDraft(productDraft(fresh));
      setProblem(null);
      setNotice('Saved.');
    } finally {
      await queryClient.invalidateQueries({ queryKey: ['products', 'list'] });
    }
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const local = checkDraft(draft, saved);
    if (local) return fail(local);
    setBusy(true);
    setNotice(null);
    try {
      if (saved) await save(draft, saved);
      else await create(draft);
    } catch (error) {
      fail(toFormProblem(error));
    } finally {
      setBusy(false);
    }
  }

  async function remove(product: AdminProduct) {
    setBusy(true);
    try {
      await admin.products.delete(product.id);
      queryClient.removeQueries({ queryKey: ['products', 'one', product.id] });
      await queryClient.invalidateQueries({ queryKey: ['products', 'list'] });
      void navigate('/products', { state: { notice: `Deleted “${product.title}”.` } });
    } catch (error) {
      fail(toFormProblem(error));
      setBusy(false);
    }
  }

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);
  const shown = (pointer: string) =>
    /^\/(title|handle|description|status|image|tags|seo\/title|seo\/description)(\/|$)/.test(pointer) ||
    /^\/variants\/\d+\/(label|sku|priceAmount|compareAtAmount|onHand|weightGrams|requiresShipping)(\/|$)/.test(
      pointer,
    );

  return (
    <>
      <PageHeader
        title={saved ? saved.title : 'Add product'}
        actions={
          saved ? (
            <ConfirmButton
              title={`Delete “${saved.title}”?`}
              body={
                <p>
                  The product and its {saved.variants.length} variant{saved.variants.length === 1 ? '' : 's'}{' '}
                  are deleted for good and leave the shop and its collections. Orders keep their lines.
                </p>
              }
              confirmLabel="Delete product"
              onConfirm={() => void remove(saved)}
              disabled={busy}
            >
              Delete product
            </ConfirmButton>
          ) : null
        }
      >
        <p className="muted">
          <Link to="/products">Products</Link>
          {saved ? (
            <>
              {' '}
              · <StatusBadge status={saved.status} /> · updated {formatDateTime(saved.updatedAt)}
            </>
          ) : null}
        </p>
      </PageHeader>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <div ref={banner} tabIndex={-1} className="banner-anchor">
        <ProblemBanner problem={problem} others={problem ? unclaimed(problem, shown) : []} />
      </div>
      <form className="product-form" onSubmit={(event) => void onSubmit(event)} noValidate>
        <div className="product-layout">
          <div>
            <section className="panel" aria-labelledby="product-details">
              <h2 id="product-details">Details</h2>
              <TextField
                label="Title"
                name="title"
                value={draft.title}
                required
                maxLength={500}
                error={at('/title', 'The title')}
                onChange={(event) => update({ title: event.target.value })}
              />
              <TextField
                label="Handle"
                name="handle"
                value={draft.handle}
                maxLength={HANDLE_MAX}
                autoCapitalize="none"
                autoComplete="off"
                spellCheck={false}
                hint={<HandleHint draft={draft} saved={saved} />}
                error={at('/handle', 'The handle')}
                onChange={(event) => update({ handle: event.target.value })}
              />
              <TextAreaField
                label="Description"
                name="description"
                value={draft.description}
                hint="Plain text, shown on the product page."
                error={at('/description', 'The description')}
                onChange={(event) => update({ description: event.target.value })}
              />
              <fieldset className="seo">
                <legend>Search engines</legend>
                <TextField
                  label="Page title"
                  name="seoTitle"
                  value={draft.seoTitle}
                  maxLength={SEO_TITLE_MAX}
                  hint="For the browser tab and search results. Left empty: the product title."
                  error={at('/seo/title', 'The page title')}
                  onChange={(event) => update({ seoTitle: event.target.value })}
                />
                <TextAreaField
                  label="Meta description"
                  name="seoDescription"
                  value={draft.seoDescription}
                  rows={3}
                  hint={`The summary search results show under the title. ${characters(draft.seoDescription)} of ${SEO_DESCRIPTION_MAX} characters.`}
                  error={at('/seo/description', 'The meta description')}
                  onChange={(event) => update({ seoDescription: event.target.value })}
                />
              </fieldset>
            </section>

            <section className="panel" aria-labelledby="product-variants">
              <h2 id="product-variants">Variants</h2>
              <p className="hint">
                Each variant is a version a customer can buy (a size, a colour). Prices are in {currency}; the
                product card shows the lowest price.
              </p>
              <div data-variants={variantsId}>
                {draft.variants.length === 0 ? (
                  <p className="muted">
                    No variants yet. A draft may have none; an active product needs one.
                  </p>
                ) : null}
                {draft.variants.map((variant, index) => (
                  <VariantFields
                    key={variant.key}
                    index={index}
                    variant={variant}
                    currency={currency}
                    at={at}
                    onChange={(changes) => updateVariant(variant.key, changes)}
                    onRemove={() => removeVariant(variant)}
                  />
                ))}
              </div>
              {draft.removed.length > 0 ? (
                <div className="banner warning">
                  <p>Deleted when you save:</p>
                  <ul className="removed-variants">
                    {draft.removed.map((variant) => (
                      <li key={variant.id}>
                        {variant.label}
                        {variant.sku ? ` (${variant.sku})` : ''}{' '}
                        <button type="button" className="link" onClick={() => keepVariant(variant)}>
                          Keep {variant.label}
                        </button>
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
              <p className="field-error" id="variants-error">
                {problem ? (fieldMessage(problem, '/variants', 'Variants') ?? null) : null}
              </p>
              <button type="button" onClick={addVariant}>
                Add variant
              </button>
            </section>
          </div>

          <div>
            <section className="panel" aria-labelledby="product-status">
              <h2 id="product-status">Status</h2>
              <SelectField
                label="Status"
                name="status"
                value={draft.status}
                options={STATUS_OPTIONS}
                hint="Only active products appear in the shop."
                error={at('/status', 'The status')}
                onChange={(event) => update({ status: event.target.value as ProductStatus })}
              />
            </section>
            <section className="panel" aria-labelledby="product-organization">
              <h2 id="product-organization">Organization</h2>
              <TextField
                label="Tags"
                name="tags"
                value={draft.tags}
                hint="Separate tags with commas. Smart collections can pick products by tag."
                error={at('/tags', 'A tag')}
                onChange={(event) => update({ tags: event.target.value })}
              />
              {parseTags(draft.tags).length > 0 ? (
                <ul className="tag-list" aria-label="Tags">
                  {parseTags(draft.tags).map((tag, i) => (
                    <li key={`${tag}-${i}`} className="badge">
                      {tag}
                    </li>
                  ))}
                </ul>
              ) : null}
            </section>
            <section className="panel" aria-labelledby="product-image">
              <h2 id="product-image">Image</h2>
              <TextField
                label="Image URL"
                name="image"
                type="url"
                inputMode="url"
                value={draft.image}
                placeholder="https://"
                hint="An https address of the picture, e.g. from your image host or CDN."
                error={at('/image', 'The image')}
                onChange={(event) => update({ image: event.target.value })}
              />
              <ImagePreview url={draft.image} alt={`Image of ${draft.title || 'the product'}`} />
            </section>
          </div>
        </div>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : saved ? 'Save product' : 'Create product'}
          </button>
          <Link to="/products">Cancel</Link>
        </div>
      </form>
    </>
  );
}

/**
 * The handle's hint: what a blank one does (create) or what a change does (edit), and the shop
 * address it gives, live; on create a blank one shows the handle the title would make.
 */
function HandleHint({ draft, saved }: { draft: ProductDraft; saved: AdminProduct | null }) {
  const typed = draft.handle.trim();
  const made = saved === null && typed === '' ? slugify(draft.title, MADE_HANDLE_MAX) : '';
  /** The address that redirects once a changed handle is saved. */
  const old = saved !== null && typed !== saved.handle && HANDLE.test(typed) ? saved.handle : null;
  return (
    <>
      {saved === null
        ? 'Left empty: made from the title (e.g. linen-shirt).'
        : 'After a change, the old address keeps working: it redirects to the new one.'}
      <span className="url-preview">
        In the shop: <code>{shopPath(typed || made || '…')}</code>
        {made ? ' (from the title)' : null}
        {old !== null ? (
          <>
            ; <code>{shopPath(old)}</code> will redirect there
          </>
        ) : null}
      </span>
    </>
  );
}

function VariantFields({
  index,
  variant,
  currency,
  at,
  onChange,
  onRemove,
}: {
  index: number;
  variant: VariantDraft;
  currency: string;
  at: (pointer: string, name: string) => string | undefined;
  onChange: (changes: Partial<VariantDraft>) => void;
  onRemove: () => void;
}) {
  const base = `/variants/${index}`;
  const name = `Variant ${index + 1}`;
  const shippingHintId = useId();
  return (
    <fieldset className="variant">
      <legend>{name}</legend>
      <div className="variant-grid">
        <TextField
          label="Label"
          value={variant.label}
          maxLength={200}
          placeholder="e.g. Small"
          error={at(`${base}/label`, 'The label')}
          onChange={(event) => onChange({ label: event.target.value })}
        />
        <TextField
          label="SKU"
          value={variant.sku}
          maxLength={100}
          hint="Optional; unique in your store."
          error={at(`${base}/sku`, 'The SKU')}
          onChange={(event) => onChange({ sku: event.target.value })}
        />
        <MoneyField
          label="Price"
          currency={currency}
          value={variant.priceAmount}
          error={at(`${base}/priceAmount`, 'The price')}
          onChange={(amount, problem) => onChange({ priceAmount: amount, priceProblem: problem })}
        />
        <MoneyField
          label="Compare-at price"
          currency={currency}
          value={variant.compareAtAmount}
          optional
          hint="Optional: the former price, shown crossed out."
          error={at(`${base}/compareAtAmount`, 'The compare-at price')}
          onChange={(amount, problem) => onChange({ compareAtAmount: amount, compareAtProblem: problem })}
        />
        <TextField
          label="On hand"
          value={variant.onHand}
          inputMode="numeric"
          pattern="[0-9]*"
          hint="Units in stock (a recount)."
          error={at(`${base}/onHand`, 'On hand')}
          onChange={(event) => onChange({ onHand: event.target.value })}
        />
        <TextField
          label="Weight (g)"
          value={variant.weight}
          inputMode="numeric"
          pattern="[0-9]*"
          hint="In grams, for shipping priced by weight; optional."
          error={at(`${base}/weightGrams`, 'The weight')}
          onChange={(event) => onChange({ weight: event.target.value })}
        />
        <dl className="stock">
          <div>
            <dt>Reserved</dt>
            <dd>{variant.saved ? variant.saved.reserved : '—'}</dd>
          </div>
          <div>
            <dt>Available</dt>
            <dd>{variant.saved ? variant.saved.available : '—'}</dd>
          </div>
        </dl>
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={variant.requiresShipping}
          aria-describedby={shippingHintId}
          onChange={(event) => onChange({ requiresShipping: event.target.checked })}
        />
        <span>Requires shipping</span>
      </label>
      <p className="hint" id={shippingHintId}>
        Off for what is not shipped (gift cards, downloads): checkout then asks no address for it.
      </p>
      {at(`${base}/requiresShipping`, 'Requires shipping') ? (
        <p className="field-error">{at(`${base}/requiresShipping`, 'Requires shipping')}</p>
      ) : null}
      {variant.saved && variant.saved.reserved > 0 ? (
        <p className="hint">
          {variant.saved.reserved} unit{variant.saved.reserved === 1 ? ' is' : 's are'} held by pending
          orders: on hand cannot go below that.
        </p>
      ) : null}
      <button type="button" className="danger" onClick={onRemove}>
        Remove {variant.label.trim() || name}
      </button>
    </fieldset>
  );
}
