/** A content page: its plain-text body as paragraphs (never markup). */
import { isStatus, shopApi } from '../api.ts';
import { useResource } from '../data.ts';
import { ErrorMessage, Loading, PageTitle, Paragraphs } from '../ui.tsx';
import { NotFound } from './not-found.tsx';

export function ContentPage({ slug }: { slug: string }) {
  const page = useResource(`page:${slug}`, () => shopApi().pages.get(slug));
  if (isStatus(page.error, 404) || isStatus(page.error, 400)) return <NotFound />;
  if (page.error) return <ErrorMessage error={page.error} onRetry={page.reload} />;
  if (!page.data) return <Loading label="Loading…" />;
  return (
    <article class="content-page">
      <PageTitle title={page.data.title}>{page.data.title}</PageTitle>
      <Paragraphs text={page.data.body} />
    </article>
  );
}
