/**
 * The region's preview, drawn by the renderer the shop uses (@storefront/blocks), and its status:
 * published or not, unsaved changes, when the draft was saved and published.
 */
import { renderBlocks, toElements, type Block } from '@storefront/blocks';
import { createElement, useMemo, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { AdminRegion } from '../data/regions.ts';
import { formatDateTime } from '../ui/dates.ts';

export function RegionPreview({ blocks }: { blocks: Block[] }) {
  const draft = blocks;
  const preview = useMemo(
    () =>
      toElements<ReactNode>(renderBlocks(draft), (tag, props, ...children) =>
        createElement(tag, props, ...children),
      ),
    [draft],
  );
  return (
    <section className="panel builder-preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <p className="hint">
        Drawn by the renderer your shop uses, with its default styles; your theme may look different. The
        preview is only a picture (its links do nothing here, and screen readers skip it: the list of blocks
        has the same content). Relative image paths load from your shop, not from here.
      </p>
      {/* inert: the preview's headings and links are the shop's, not this page's. */}
      <div className="region-preview" inert>
        {draft.length === 0 ? <p className="muted">Nothing to show yet.</p> : preview}
      </div>
    </section>
  );
}

export function RegionStatus({
  region,
  published,
  dirty,
}: {
  region: AdminRegion;
  published: boolean;
  dirty: boolean;
}) {
  return (
    <p className="region-status">
      {published ? (
        <span className="badge badge-published">Published</span>
      ) : (
        <span className="badge">Not published</span>
      )}{' '}
      {dirty ? (
        <span className="badge badge-failed">Unsaved changes</span>
      ) : published && region.hasUnpublishedChanges ? (
        <span className="badge badge-draft">Draft not published</span>
      ) : null}{' '}
      <span className="muted">
        Draft saved {formatDateTime(region.draft.updatedAt)}
        {published ? ` · published ${formatDateTime(region.published?.updatedAt)}` : ''}
      </span>{' '}
      <Link to="/content/regions">All regions</Link>
    </p>
  );
}
