/**
 * The region builder (lazy-loaded): the draft's block tree with a palette, drag and drop and
 * keyboard moves, the selected block's settings checked by the shared rules as they change, a live
 * preview by the shop's own renderer, save (refused while the rules find problems; the server's
 * refusals are shown at their block and field), an unsaved-changes guard, and publish after a view
 * of what changes.
 */
import '@storefront/blocks/blocks.css';
import { Link, useParams } from 'react-router';
import { useCreateRegion, useRegion } from '../data/regions.ts';
import { Empty, ErrorBanner, Loading, PageHeader } from '../ui/components.tsx';
import { isStatus } from '../ui/problems.ts';
import { readingForForm } from '../ui/queries.tsx';
import { Builder } from './builder.tsx';
import './builder.css';

export default function RegionBuilder() {
  const { key = '' } = useParams();
  const region = useRegion(key);
  const create = useCreateRegion();

  const title = `Region “${key}”`;
  if (region.isPending || readingForForm(region)) {
    return (
      <>
        <PageHeader title={title} />
        <Loading label="Loading the region…" />
      </>
    );
  }
  if (region.isError) {
    return (
      <>
        <PageHeader title={title} />
        {isStatus(region.error, 404) ? (
          <Empty>
            <p>There is no region with the key “{key}”. It may have been deleted.</p>
            <ErrorBanner error={create.error} />
            <div className="actions centered">
              <button
                type="button"
                className="primary"
                onClick={() => create.mutate(key)}
                disabled={create.isPending}
              >
                Create “{key}”
              </button>
              <Link to="/content/regions">Back to regions</Link>
            </div>
          </Empty>
        ) : (
          <ErrorBanner error={region.error} onRetry={() => void region.refetch()} />
        )}
      </>
    );
  }
  return <Builder key={`${key}:${region.data.id}`} initial={region.data} title={title} />;
}
