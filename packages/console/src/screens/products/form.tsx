/**
 * The product form: create at /products/new, edit at /products/:id, with its handle and SEO fields
 * (decision `product-options`), its images (media.tsx, decision `media-uploads`), its options and variants: without options a list of variants
 * (variants.tsx), with options a matrix of their combinations (options.tsx, variant-table.tsx,
 * matrix.ts), and its archived variants with Restore. Prices are typed as decimals in the store
 * currency and sent as exact minor units (MoneyField); the form checks what it can before sending
 * (draft.ts) and shows the API's problems at the fields they concern.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  ProductSaveError,
  useCreateProduct,
  useDeleteProduct,
  useProduct,
  useSaveProduct,
  type AdminProduct,
  type AdminVariant,
} from '../../data/products.ts';
import { useStoreSettings } from '../../data/settings.ts';
import {
  ConfirmButton,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  ProblemBanner,
  SelectField,
  StatusBadge,
  TextAreaField,
  TextField,
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
import { readingForForm } from '../../ui/queries.tsx';
import {
  ImagePreview,
  slugify,
  STATUS_OPTIONS,
  useArrivalNotice,
  type ProductStatus,
} from '../catalog-parts.tsx';
import {
  archivedVariants,
  characters,
  checkDraft,
  createBody,
  emptyVariant,
  firstPrice,
  HANDLE,
  HANDLE_MAX,
  hasMatrix,
  MADE_HANDLE_MAX,
  parseTags,
  productDraft,
  savePlan,
  SEO_DESCRIPTION_MAX,
  SEO_TITLE_MAX,
  shopPath,
  underVariant,
  variantDraft,
  variantName,
  type ImageDraft,
  type ProductDraft,
  type VariantDraft,
} from './draft.ts';
import {
  activeOptions,
  comboId,
  comboLabel,
  comboOf,
  inMatrixOrder,
  reconcile,
  type Combo,
  type OptionDraft,
  type Reconciled,
} from './matrix.ts';
import { MediaManager } from './media.tsx';
import { ConfirmDialog, OptionsEditor, type EditIntent } from './options.tsx';
import { ArchivedVariants, VariantTable } from './variant-table.tsx';
import { VariantFields } from './variants.tsx';

/** An edit of the options that would archive saved variants, waiting for its confirmation. */
interface PendingEdit {
  next: OptionDraft[];
  result: Reconciled<VariantDraft, AdminVariant>;
  intent: EditIntent;
}

export function ProductEdit() {
  const { id } = useParams();
  const settings = useStoreSettings();
  // Read on every visit: a product reached from an order shows the stock after that sale.
  const product = useProduct(id);

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
  const navigate = useNavigate();
  const arrival = useArrivalNotice();
  const createProduct = useCreateProduct();
  const saveProduct = useSaveProduct();
  const deleteProduct = useDeleteProduct();
  const [saved, setSaved] = useState<AdminProduct | null>(initial);
  const [draft, setDraft] = useState<ProductDraft>(() => productDraft(initial));
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [notice, setNotice] = useState<string | null>(arrival);
  const [busy, setBusy] = useState(false);
  const [uploading, setUploading] = useState(false);
  const [pending, setPending] = useState<PendingEdit | null>(null);
  const banner = useRef<HTMLDivElement>(null);
  const variantsId = useId();
  const matrix = hasMatrix(draft);
  const archived = archivedVariants(saved);

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

  /**
   * An edit of the options: the rows follow (matrix.ts). One that would archive saved variants
   * waits for a confirmation naming them.
   */
  function editOptions(next: OptionDraft[], intent: EditIntent) {
    const result = reconcile({
      before: draft.options,
      after: next,
      rows: draft.variants,
      stranded: draft.stranded,
      archived,
      makeRow: (combo) => emptyVariant('', combo, firstPrice(draft, saved)),
      revive: (variant, combo) => variantDraft(variant, combo),
    });
    if (result.newlyStranded.length > 0) setPending({ next, result, intent });
    else applyOptions(next, result);
  }

  function applyOptions(next: OptionDraft[], result: Reconciled<VariantDraft, AdminVariant>) {
    const leaving = hasMatrix(draft) && activeOptions(next).length === 0;
    setDraft((d) => ({
      ...d,
      options: next,
      // Without options left, each variant needs a label: its combination's, unless it has one.
      variants: leaving
        ? result.rows.map((row, i) => {
            const before = d.variants.find((v) => v.key === row.key) ?? d.variants[i];
            return row.label.trim() || !before ? row : { ...row, label: comboLabel(before.combo, d.options) };
          })
        : result.rows,
      stranded: result.stranded,
    }));
    // Problems point at rows by index; they may no longer line up.
    if (problem) setProblem(null);
  }

  /** A combination without a variant gets a new one. */
  function addCombination(combo: Combo) {
    setDraft((d) => ({
      ...d,
      variants: inMatrixOrder([...d.variants, emptyVariant('', combo, firstPrice(d, saved))], d.options),
    }));
    setProblem(null);
  }

  function leaveOut(variant: VariantDraft) {
    setDraft((d) => ({ ...d, variants: d.variants.filter((v) => v.key !== variant.key) }));
    setProblem(null);
  }

  /** An archived variant brought back: it is live again, in its combination's row (a new row there gives way). */
  function restored(variant: AdminVariant) {
    setSaved((s) => s && { ...s, variants: s.variants.map((v) => (v.id === variant.id ? variant : v)) });
    setDraft((d) => {
      if (!hasMatrix(d)) return { ...d, variants: [...d.variants, variantDraft(variant)] };
      const combo = comboOf(variant.options, d.options);
      // Its values are no longer the form's: archived again when the form is saved.
      if (!combo) return { ...d, stranded: [...d.stranded, variant] };
      const id = comboId(combo, d.options);
      const others = d.variants.filter((v) => v.saved || comboId(v.combo, d.options) !== id);
      return { ...d, variants: inMatrixOrder([...others, variantDraft(variant, combo)], d.options) };
    });
    setProblem(null);
    setNotice(`Restored ${variant.label}.`);
  }

  /** The images changed: a variant whose image left the list shows the product's again. */
  function updateImages(change: (images: ImageDraft[]) => ImageDraft[]) {
    setDraft((d) => {
      const images = change(d.images);
      const ids = new Set(images.map((image) => image.mediaId));
      return {
        ...d,
        images,
        variants: d.variants.map((v) => (v.imageId && !ids.has(v.imageId) ? { ...v, imageId: null } : v)),
      };
    });
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
      const created = await createProduct.mutateAsync(createBody(current));
      void navigate(`/products/${created.id}`, {
        replace: true,
        state: { notice: `Created “${created.title}”.` },
      });
    } catch (error) {
      fail(toFormProblem(error));
    }
  }

  /**
   * Saves an existing product as a series of calls (useSaveProduct, draft.ts's savePlan): the
   * product's fields and images, its options (archiving the variants they strand), new variants,
   * changed variants (those moved to new values restored with them), removed variants, and a
   * change to active last (it needs the variants first). Each success is kept in the form, so after
   * a refusal saving again sends only what is left; the refusal is shown at the fields of the call
   * it concerns.
   */
  async function save(current: ProductDraft, product: AdminProduct) {
    let working = current;
    const keep = (next: ProductDraft) => {
      working = next;
      setDraft(next);
    };
    try {
      const fresh = await saveProduct.mutateAsync({
        productId: product.id,
        ...savePlan(current, product),
        onOptionsSaved: () => keep({ ...working, stranded: [] }),
        onVariantSaved: (index, next) => {
          const row = {
            ...variantDraft(next, current.variants[index]!.combo),
            key: current.variants[index]!.key,
          };
          keep({ ...working, variants: working.variants.map((v, i) => (i === index ? row : v)) });
        },
        onVariantRemoved: (variant) =>
          keep({ ...working, removed: working.removed.filter((v) => v.id !== variant.id) }),
      });
      setSaved(fresh);
      setDraft(productDraft(fresh));
      setProblem(null);
      setNotice('Saved.');
    } catch (error) {
      if (!(error instanceof ProductSaveError)) return fail(toFormProblem(error));
      const { step } = error;
      if (step.kind === 'variant') return fail(toFormProblem(error.cause, underVariant(step.index)));
      if (step.kind === 'remove') return fail(toFormProblem(error.cause, () => '/variants'));
      return fail(toFormProblem(error.cause));
    }
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    if (uploading) {
      return fail(
        localProblem('Wait for the uploads to finish, then save.', [
          { pointer: '/images', detail: 'Some images are still uploading.' },
        ]),
      );
    }
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
      await deleteProduct.mutateAsync(product);
      void navigate('/products', { state: { notice: `Deleted “${product.title}”.` } });
    } catch (error) {
      fail(toFormProblem(error));
      setBusy(false);
    }
  }

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);
  const shown = (pointer: string) =>
    /^\/(title|handle|description|status|tags|seo\/title|seo\/description|options)(\/|$)/.test(pointer) ||
    (pointer === '/image' && draft.images.length === 0) ||
    /^\/images(\/\d+\/(mediaId|alt))?$/.test(pointer) ||
    (matrix
      ? /^\/variants\/\d+\/(options|label|sku|priceAmount|compareAtAmount|onHand|weightGrams|imageId)(\/|$)/
      : /^\/variants\/\d+\/(label|sku|priceAmount|compareAtAmount|onHand|weightGrams|requiresShipping|imageId)(\/|$)/
    ).test(pointer);

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

            <section className="panel" aria-labelledby="product-media">
              <h2 id="product-media">Media</h2>
              <MediaManager
                images={draft.images}
                onChange={updateImages}
                onPendingChange={setUploading}
                at={at}
              />
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
            {draft.images.length === 0 ? (
              <section className="panel" aria-labelledby="product-image">
                <h2 id="product-image">Image</h2>
                <TextField
                  label="Image URL"
                  name="image"
                  type="url"
                  inputMode="url"
                  value={draft.image}
                  placeholder="https://"
                  hint="Or an https address of the picture, e.g. from your image host or CDN, when it has no uploaded images (Media)."
                  error={at('/image', 'The image')}
                  onChange={(event) => update({ image: event.target.value })}
                />
                <ImagePreview url={draft.image} alt={`Image of ${draft.title || 'the product'}`} />
              </section>
            ) : null}
          </div>
        </div>

        <section className="panel" aria-labelledby="product-variants">
          <h2 id="product-variants">Variants</h2>
          <p className="hint">
            Each variant is a version a customer can buy (a size, a colour). Prices are in {currency}; the
            product card shows the lowest price.
          </p>
          <OptionsEditor options={draft.options} at={at} onEdit={editOptions} />
          <div data-variants={variantsId}>
            {matrix ? (
              <VariantTable
                draft={draft}
                archived={archived}
                currency={currency}
                at={at}
                onChange={updateVariant}
                onAdd={addCombination}
                onLeaveOut={leaveOut}
              />
            ) : (
              <>
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
                    images={draft.images}
                    at={at}
                    onChange={(changes) => updateVariant(variant.key, changes)}
                    onRemove={() => removeVariant(variant)}
                  />
                ))}
              </>
            )}
          </div>
          {draft.stranded.length > 0 ? (
            <div className="banner warning">
              <p>Archived when you save (kept with their orders, never deleted):</p>
              <ul className="removed-variants" aria-label="Archived when you save">
                {draft.stranded.map((variant) => (
                  <li key={variant.id}>{variantName(variant)}</li>
                ))}
              </ul>
            </div>
          ) : null}
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
          {matrix ? null : (
            <button type="button" onClick={addVariant}>
              Add variant
            </button>
          )}
          <ArchivedVariants variants={archived} onRestored={restored} />
        </section>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : saved ? 'Save product' : 'Create product'}
          </button>
          <Link to="/products">Cancel</Link>
        </div>
      </form>
      {pending ? (
        <ConfirmDialog
          title={pending.intent.title}
          confirmLabel={pending.intent.confirmLabel}
          onConfirm={() => {
            applyOptions(pending.next, pending.result);
            setPending(null);
          }}
          onCancel={() => setPending(null)}
        >
          <p>
            {pending.result.newlyStranded.length === 1
              ? 'This variant no longer has a combination, so it is archived when you save:'
              : `These ${pending.result.newlyStranded.length} variants no longer have a combination, so they are archived when you save:`}
          </p>
          <ul>
            {pending.result.newlyStranded.map((variant) => (
              <li key={variant.id}>{variantName(variant)}</li>
            ))}
          </ul>
          <p>
            Archived variants keep their orders and history and are listed under “Archived variants”, where
            they can be restored. Nothing is deleted.
          </p>
        </ConfirmDialog>
      ) : null}
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
