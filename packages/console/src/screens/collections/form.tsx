/**
 * The collection form: create at /collections/new, edit at /collections/:id. The title (the handle
 * follows it until edited), the handle, the type (chosen once, at creation), then a manual
 * collection's ordered products (manual.tsx) or a smart one's rules with their live preview
 * (smart.tsx). API problems are shown at the fields they concern.
 */
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  useCollection,
  useCollectionMembers,
  useCreateCollection,
  useDeleteCollection,
  useUpdateCollection,
} from '../../data/collections.ts';
import { useStoreSettings } from '../../data/settings.ts';
import { ConfirmButton, ErrorBanner, Loading, PageHeader, TextField } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { fieldMessage, isStatus, localProblem, toFormProblem, type FormProblem } from '../../ui/problems.ts';
import { readingForForm } from '../../ui/queries.tsx';
import {
  FormMessages,
  slugify,
  useFormMessages,
  type AdminCollection,
  type AdminProduct,
} from '../catalog-parts.tsx';
import { ManualProducts } from './manual.tsx';
import { rulesDraft, toRules, type RulesDraft } from './rules.ts';
import { SmartRules } from './smart.tsx';

const SLUG = /^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$/;

export function CollectionEdit() {
  const { id } = useParams();
  const settings = useStoreSettings();
  const collection = useCollection(id);
  const members = useCollectionMembers(id, collection.data?.kind === 'manual');

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
  const navigate = useNavigate();
  const messages = useFormMessages();
  const { problem, setProblem, setNotice, fail } = messages;
  const createCollection = useCreateCollection();
  const updateCollection = useUpdateCollection();
  const deleteCollection = useDeleteCollection();
  const [saved, setSaved] = useState<AdminCollection | null>(initial);
  const [title, setTitle] = useState(initial?.title ?? '');
  const [slug, setSlug] = useState(initial?.slug ?? '');
  const [slugEdited, setSlugEdited] = useState(initial !== null);
  const [kind, setKind] = useState<AdminCollection['kind']>(initial?.kind ?? 'manual');
  const [members, setMembers] = useState<AdminProduct[]>(initialMembers);
  const [rules, setRules] = useState<RulesDraft>(() => rulesDraft(initial?.rules ?? null));
  const [busy, setBusy] = useState(false);

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);

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
        const created = await createCollection.mutateAsync({
          title: title.trim(),
          slug,
          kind,
          ...(productIds ? { productIds } : {}),
          ...(sendRules ? { rules: sendRules } : {}),
        });
        void navigate(`/collections/${created.id}`, {
          replace: true,
          state: { notice: `Created “${created.title}”.` },
        });
        return;
      }
      const updated = await updateCollection.mutateAsync({
        id: saved.id,
        body: {
          title: title.trim(),
          slug,
          ...(productIds ? { productIds } : {}),
          ...(sendRules ? { rules: sendRules } : {}),
        },
        ...(kind === 'manual' ? { members } : {}),
      });
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
      await deleteCollection.mutateAsync(collection);
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
      <FormMessages messages={messages} shown={shown} />
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
