/** Regions: the named slots of blocks the shop shows (home hero, footer note), with their publish state. */
import { Link } from 'react-router';
import { useCreateRegion, useDeleteRegion, useFindRegion, useRegions } from '../data/regions.ts';
import { formatDateTime } from '../ui/dates.ts';
import { ACTIONS, PageHeader, useCursorPager } from '../ui/components.tsx';
import { ContentList, CreateByHandle, DeleteCell } from './content-parts.tsx';

export function Regions() {
  const pager = useCursorPager();
  const list = useRegions(pager.cursor);
  const findRegion = useFindRegion();
  const create = useCreateRegion();
  const remove = useDeleteRegion({
    notice: (key) => `Region “${key}” deleted.`,
  });

  return (
    <>
      <PageHeader title="Regions">
        <p className="muted">
          Regions are areas of your shop (a home page banner, a footer note) built from blocks. Edit a draft,
          then publish it: the shop shows only what you publish.
        </p>
      </PageHeader>

      <section aria-labelledby="new-region">
        <h2 id="new-region">New region</h2>
        <CreateByHandle
          label="Region key"
          hint="How your theme asks for it, e.g. home-hero: lower-case letters, digits and hyphens."
          submitLabel="Create region"
          exists={findRegion}
          create={(key) => create.mutateAsync(key)}
          openPath={(key) => `/content/regions/${key}`}
        />
      </section>

      <ContentList
        id="all-regions"
        title="All regions"
        query={list}
        pager={pager}
        remove={remove}
        loading="Loading regions…"
        empty={<p>No regions yet. Create one above, then add blocks to it in the builder.</p>}
        caption="Regions and their publish state"
        columns={['Key', 'Status', 'Draft saved', 'Published', ACTIONS]}
      >
        {(region) => (
          <tr key={region.id}>
            <td>
              <Link to={`/content/regions/${region.key}`}>{region.key}</Link>
            </td>
            <td>
              <span className="status-stack">
                {region.publishedAt ? (
                  <span className="badge badge-published">Published</span>
                ) : (
                  <span className="badge">Not published</span>
                )}
                {region.hasUnpublishedChanges ? (
                  <span className="badge badge-draft">Unpublished changes</span>
                ) : null}
              </span>
            </td>
            <td>{formatDateTime(region.draftUpdatedAt)}</td>
            <td>{formatDateTime(region.publishedAt)}</td>
            <DeleteCell
              name={region.key}
              value={region.key}
              title={`Delete the region “${region.key}”?`}
              body={
                <p>
                  Its draft and its published blocks are deleted.
                  {region.publishedAt
                    ? ' Your shop stops showing it at once.'
                    : ' It was never published, so your shop does not change.'}{' '}
                  This cannot be undone.
                </p>
              }
              confirmLabel="Delete region"
              remove={remove}
            />
          </tr>
        )}
      </ContentList>
    </>
  );
}
