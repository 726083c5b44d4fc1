/** Pages: a title and a plain-text body (About us, Shipping), with a live preview of the paragraphs. */
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  useCreatePage,
  useDeletePage,
  useFindPage,
  usePage,
  usePages,
  useSavePage,
  type AdminPage,
} from '../data/pages.ts';
import { formatDateTime } from '../ui/dates.ts';
import {
  ACTIONS,
  ConfirmButton,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  TextAreaField,
  TextField,
  useCursorPager,
} from '../ui/components.tsx';
import { errorMessage, isStatus, messageAt } from '../ui/problems.ts';
import { readingForForm } from '../ui/queries.tsx';
import {
  ContentList,
  CreateFailure,
  createUnlessTaken,
  DeleteCell,
  handleProblem,
  LeaveGuard,
  toHandle,
} from './content-parts.tsx';

const MAX_TITLE = 200;
const MAX_BODY = 100_000;
const length = (text: string) => [...text].length;

/** Paragraphs as the shop shows them: split on blank lines, each one text (never HTML). */
export function paragraphs(body: string): string[] {
  return body.split(/\r?\n\s*\r?\n/).filter((p) => p.trim() !== '');
}

function titleProblem(title: string): string | undefined {
  if (title.trim() === '') return 'Enter a title.';
  if (length(title) > MAX_TITLE) return `Use at most ${MAX_TITLE} characters.`;
  return undefined;
}

export function Pages() {
  const pager = useCursorPager();
  const list = usePages(pager.cursor);
  const remove = useDeletePage({
    notice: (slug) => `Page “${slug}” deleted.`,
  });

  return (
    <>
      <PageHeader title="Pages">
        <p className="muted">Pages of plain text such as “About us” or “Shipping and returns”.</p>
      </PageHeader>

      <section aria-labelledby="new-page">
        <h2 id="new-page">New page</h2>
        <NewPage />
      </section>

      <ContentList
        id="all-pages"
        title="All pages"
        query={list}
        pager={pager}
        remove={remove}
        loading="Loading pages…"
        empty={<p>No pages yet. Create one above, for example “About us”.</p>}
        caption="Pages"
        columns={['Title', 'Slug', 'Updated', ACTIONS]}
      >
        {(page) => (
          <tr key={page.id}>
            <td>
              <Link to={`/content/pages/${page.slug}`}>{page.title}</Link>
            </td>
            <td>
              <code>{page.slug}</code>
            </td>
            <td>{formatDateTime(page.updatedAt)}</td>
            <DeleteCell
              name={page.title}
              value={page.slug}
              title={`Delete the page “${page.title}”?`}
              body={<p>Your shop stops showing it at once. This cannot be undone.</p>}
              confirmLabel="Delete page"
              remove={remove}
            />
          </tr>
        )}
      </ContentList>
    </>
  );
}

/** Title first; the slug follows it until the merchant edits the slug. */
function NewPage() {
  const findPage = useFindPage();
  const create = useCreatePage();
  const navigate = useNavigate();
  const [title, setTitle] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [errors, setErrors] = useState<{ title?: string | undefined; slug?: string | undefined }>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = { title: titleProblem(title), slug: handleProblem(slug) ?? undefined };
    setErrors(next);
    if (next.title || next.slug) return;
    setBusy(true);
    setFailure(null);
    try {
      const created = await createUnlessTaken(slug, findPage, () =>
        create.mutateAsync({ slug, title: title.trim() }),
      );
      if (created === 'taken') {
        setErrors({ slug: `“${slug}” is already in use. Choose another, or open it from the list.` });
        return;
      }
      void navigate(`/content/pages/${slug}`);
    } catch (error) {
      setErrors({ title: messageAt(error, '/title'), slug: messageAt(error, '/slug') });
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel create-form" onSubmit={(event) => void submit(event)} noValidate>
      <TextField
        label="Title"
        value={title}
        error={errors.title}
        maxLength={MAX_TITLE}
        onChange={(e) => {
          setTitle(e.target.value);
          if (!slugEdited) setSlug(toHandle(e.target.value));
        }}
      />
      <TextField
        label="Slug"
        hint="The page's address in your shop, e.g. about-us."
        value={slug}
        error={errors.slug}
        maxLength={63}
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => {
          setSlug(e.target.value.trim().toLowerCase());
          setSlugEdited(true);
        }}
      />
      <CreateFailure message={failure} />
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create page'}
      </button>
    </form>
  );
}

export function PageEdit() {
  const { slug = '' } = useParams();
  const page = usePage(slug);
  if (page.isPending || readingForForm(page))
    return (
      <>
        <PageHeader title="Page" />
        <Loading label="Loading the page…" />
      </>
    );
  if (page.isError)
    return (
      <>
        <PageHeader title={`Page “${slug}”`} />
        {isStatus(page.error, 404) ? (
          <Empty>
            <p>There is no page with the slug “{slug}”.</p>
            <Link to="/content/pages">Back to pages</Link>
          </Empty>
        ) : (
          <ErrorBanner error={page.error} onRetry={() => void page.refetch()} />
        )}
      </>
    );
  return <PageEditor key={page.data.id} initial={page.data} />;
}

function PageEditor({ initial }: { initial: AdminPage }) {
  const navigate = useNavigate();
  const slug = initial.slug;
  const [page, setPage] = useState(initial);
  const [title, setTitle] = useState(initial.title);
  const [body, setBody] = useState(initial.body);
  const [tried, setTried] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const dirty = title !== page.title || body !== page.body;
  const shown = useMemo(() => paragraphs(body), [body]);

  const save = useSavePage(slug, {
    onSuccess: (data) => {
      setPage(data);
      setTitle(data.title);
      setNotice('Page saved. Your shop shows it now.');
    },
  });
  const remove = useDeletePage({ onDone: () => void navigate('/content/pages') });

  const bodyLength = length(body);
  const titleError =
    (tried || title !== page.title ? titleProblem(title) : undefined) ?? messageAt(save.error, '/title');
  const bodyError =
    bodyLength > MAX_BODY
      ? `Use at most ${MAX_BODY.toLocaleString()} characters (this has ${bodyLength.toLocaleString()}).`
      : messageAt(save.error, '/body');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    setNotice(null);
    if (titleProblem(title) || bodyLength > MAX_BODY) {
      document.querySelector<HTMLElement>('.page-editor [aria-invalid="true"]')?.focus();
      return;
    }
    save.mutate({ title: title.trim(), body });
  };

  return (
    <>
      <PageHeader
        title={page.title || slug}
        actions={
          <ConfirmButton
            title={`Delete the page “${page.title}”?`}
            body={<p>Your shop stops showing it at once. This cannot be undone.</p>}
            confirmLabel="Delete page"
            onConfirm={() => remove.mutate(slug)}
            disabled={remove.isPending}
          >
            Delete page
          </ConfirmButton>
        }
      >
        <p className="muted">
          {dirty ? <span className="badge badge-failed">Unsaved changes</span> : null} <code>{slug}</code> ·
          updated {formatDateTime(page.updatedAt)} · <Link to="/content/pages">All pages</Link>
        </p>
      </PageHeader>
      <LeaveGuard when={dirty} what="changes to this page" />
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      {save.error && !messageAt(save.error, '/title') && !messageAt(save.error, '/body') ? (
        <ErrorBanner error={save.error} />
      ) : null}
      <ErrorBanner error={remove.error} />

      <form className="page-editor" onSubmit={submit} noValidate>
        <div className="panel">
          <TextField
            label="Title"
            value={title}
            error={titleError}
            maxLength={MAX_TITLE}
            onChange={(e) => {
              setTitle(e.target.value);
              setNotice(null);
            }}
          />
          <TextAreaField
            label="Body"
            hint={`Plain text: leave a blank line between paragraphs. ${bodyLength.toLocaleString()} of ${MAX_BODY.toLocaleString()} characters.`}
            value={body}
            error={bodyError}
            onChange={(e) => {
              setBody(e.target.value);
              setNotice(null);
            }}
          />
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save page'}
          </button>
        </div>
        <section className="page-preview" aria-labelledby="page-preview-heading">
          <h2 id="page-preview-heading">Preview</h2>
          <p className="preview-title">{title}</p>
          {shown.length === 0 ? (
            <p className="muted">The body is empty.</p>
          ) : (
            shown.map((paragraph, i) => <p key={i}>{paragraph}</p>)
          )}
        </section>
      </form>
    </>
  );
}
