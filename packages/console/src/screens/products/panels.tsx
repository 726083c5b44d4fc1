/**
 * The product form's panels beside its variants: details (title, handle, description, search
 * engines) and media in the main column; status, tax class (decision `tax-classes`), organization
 * and the image URL at the side.
 */
import type { AdminProduct } from '../../data/products.ts';
import { SelectField, TextAreaField, TextField } from '../../ui/components.tsx';
import { ImagePreview, slugify, STATUS_OPTIONS, type ProductStatus } from '../catalog-parts.tsx';
import {
  characters,
  HANDLE,
  HANDLE_MAX,
  MADE_HANDLE_MAX,
  parseTags,
  SEO_DESCRIPTION_MAX,
  SEO_TITLE_MAX,
  shopPath,
  type ImageDraft,
  type ProductDraft,
} from './draft.ts';
import { MediaManager } from './media.tsx';
import { TaxClassSelect } from '../tax-parts.tsx';

/** A field's message from the form's problem ("The title is required"). */
export type At = (pointer: string, name: string) => string | undefined;

interface PanelProps {
  draft: ProductDraft;
  at: At;
  update: (changes: Partial<ProductDraft>) => void;
}

export function MainPanels({
  draft,
  saved,
  at,
  update,
  onImagesChange,
  onUploadingChange,
}: PanelProps & {
  saved: AdminProduct | null;
  onImagesChange: (change: (images: ImageDraft[]) => ImageDraft[]) => void;
  onUploadingChange: (uploading: boolean) => void;
}) {
  return (
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
          onChange={onImagesChange}
          onPendingChange={onUploadingChange}
          at={at}
        />
      </section>
    </div>
  );
}

export function SidePanels({ draft, at, update }: PanelProps) {
  return (
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
      <section className="panel" aria-labelledby="product-tax">
        <h2 id="product-tax">Tax</h2>
        <TaxClassSelect
          label="Tax class"
          value={draft.taxClass}
          hint="Its variants are taxed at this class's rate where they are shipped; a variant may have its own."
          error={at('/taxClass', 'The tax class')}
          onChange={(taxClass) => update({ taxClass: taxClass ?? 'standard' })}
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
