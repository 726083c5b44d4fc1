/**
 * The product form: create at /products/new, edit at /products/:id, with its handle and SEO fields
 * (decision `product-options`), its images (media.tsx, decision `media-uploads`), its options and variants: without options a list of variants
 * (variants.tsx), with options a matrix of their combinations (options.tsx, variant-table.tsx,
 * matrix.ts), and its archived variants with Restore. Prices are typed as decimals in the store
 * currency (and, per variant, in the markets' other currencies: currency-prices.tsx) and sent as
 * exact minor units (MoneyField); the form checks what it can before sending
 * (draft.ts) and shows the API's problems at the fields they concern.
 */
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  ProductSaveError,
  useCreateProduct,
  useDeleteProduct,
  useProduct,
  useSaveProduct,
  type AdminProduct,
} from '../../data/products.ts';
import { useStoreSettings } from '../../data/settings.ts';
import { ConfirmButton, ErrorBanner, Loading, PageHeader, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { fieldMessage, isStatus, localProblem, toFormProblem } from '../../ui/problems.ts';
import { readingForForm } from '../../ui/queries.tsx';
import { FormMessages, useFormMessages } from '../catalog-parts.tsx';
import { createBody, priceByCurrency, savePlan, underVariant } from './bodies.ts';
import { checkDraft } from './check.ts';
import { hasMatrix, productDraft, variantDraft, type ProductDraft } from './draft.ts';
import { MainPanels, SidePanels } from './panels.tsx';
import { useVariantEdits } from './variant-edits.ts';
import { StrandedDialog, VariantsSection } from './variants-section.tsx';

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
  const messages = useFormMessages();
  const { problem, setProblem, setNotice, fail } = messages;
  const createProduct = useCreateProduct();
  const saveProduct = useSaveProduct();
  const deleteProduct = useDeleteProduct();
  const [saved, setSaved] = useState<AdminProduct | null>(initial);
  const [draft, setDraft] = useState<ProductDraft>(() => productDraft(initial));
  const [busy, setBusy] = useState(false);
  const [uploading, setUploading] = useState(false);
  const matrix = hasMatrix(draft);
  const edits = useVariantEdits({ draft, setDraft, saved, setSaved, problem, setProblem, setNotice });
  const { pending } = edits;

  const update = (changes: Partial<ProductDraft>) => setDraft((d) => ({ ...d, ...changes }));

  async function create(current: ProductDraft) {
    try {
      const created = await createProduct.mutateAsync(createBody(current));
      void navigate(`/products/${created.id}`, {
        replace: true,
        state: { notice: `Created “${created.title}”.` },
      });
    } catch (error) {
      fail(toFormProblem(error, priceByCurrency(current)));
    }
  }

  /**
   * Saves an existing product as a series of calls (useSaveProduct, bodies.ts's savePlan): the
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
      if (step.kind === 'variant') {
        const byCurrency = priceByCurrency(current);
        const at = underVariant(step.index);
        return fail(toFormProblem(error.cause, (pointer, where) => byCurrency(at(pointer, where))));
      }
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
    /^\/(title|handle|description|status|taxClass|tags|seo\/title|seo\/description|options)(\/|$)/.test(
      pointer,
    ) ||
    (pointer === '/image' && draft.images.length === 0) ||
    /^\/images(\/\d+\/(mediaId|alt))?$/.test(pointer) ||
    (matrix
      ? /^\/variants\/\d+\/(options|label|sku|priceAmount|compareAtAmount|onHand|weightGrams|taxClass|imageId)(\/|$)/
      : /^\/variants\/\d+\/(label|sku|priceAmount|compareAtAmount|onHand|weightGrams|requiresShipping|taxClass|imageId)(\/|$)/
    ).test(pointer) ||
    /^\/variants\/\d+\/prices\/[A-Z]{3}\/(amount|compareAtAmount|currency)$/.test(pointer);

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
      <FormMessages messages={messages} shown={shown} />
      <form className="product-form" onSubmit={(event) => void onSubmit(event)} noValidate>
        <div className="product-layout">
          <MainPanels
            draft={draft}
            saved={saved}
            at={at}
            update={update}
            onImagesChange={edits.updateImages}
            onUploadingChange={setUploading}
          />
          <SidePanels draft={draft} at={at} update={update} />
        </div>
        <VariantsSection draft={draft} currency={currency} problem={problem} at={at} edits={edits} />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : saved ? 'Save product' : 'Create product'}
          </button>
          <Link to="/products">Cancel</Link>
        </div>
      </form>
      {pending ? (
        <StrandedDialog
          pending={pending}
          onConfirm={() => {
            edits.applyOptions(pending.next, pending.result);
            edits.setPending(null);
          }}
          onCancel={() => edits.setPending(null)}
        />
      ) : null}
    </>
  );
}
