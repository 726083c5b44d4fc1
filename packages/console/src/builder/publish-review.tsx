/**
 * What publishing changes: the blocks added, removed, edited and moved between the published tree
 * and the draft; and the dialog that asks before publishing.
 */
import type { Block, BlockChange, BlockPlace } from '@storefront/blocks';
import type { RefObject } from 'react';
import { blockLabel, fieldLabel, placeLabel } from './labels.ts';

const KIND_LABELS: Record<BlockChange['kind'], string> = {
  added: 'Added',
  removed: 'Removed',
  changed: 'Changed',
  moved: 'Moved',
};

function place(tree: readonly Block[], at: BlockPlace): string {
  return `${placeLabel(tree, at.parentId)}, position ${at.index + 1}`;
}

function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `“${text.length > 60 ? `${text.slice(0, 59)}…` : text}”`;
}

function describe(change: BlockChange, before: readonly Block[], after: readonly Block[]) {
  switch (change.kind) {
    case 'added':
      return (
        <>
          {blockLabel(change.block)} in {place(after, change.to)}
        </>
      );
    case 'removed':
      return (
        <>
          {blockLabel(change.block)} from {place(before, change.from)}
        </>
      );
    case 'moved':
      return (
        <>
          {blockLabel(change.block)} from {place(before, change.from)} to {place(after, change.to)}
        </>
      );
    case 'changed': {
      const old = change.before.settings as Record<string, unknown>;
      const now = change.after.settings as Record<string, unknown>;
      return (
        <>
          {blockLabel(change.after)}:{' '}
          {change.fields.map((field, i) => (
            <span key={field}>
              {i > 0 ? '; ' : ''}
              {field === 'type'
                ? `type ${change.before.type} → ${change.after.type}`
                : `${fieldLabel(change.after, `settings/${field}`)} ${shown(old[field])} → ${shown(now[field])}`}
            </span>
          ))}
        </>
      );
    }
  }
}

export function ChangeList({
  changes,
  before,
  after,
}: {
  changes: readonly BlockChange[];
  before: readonly Block[];
  after: readonly Block[];
}) {
  const counts = (['added', 'changed', 'moved', 'removed'] as const)
    .map((kind) => [kind, changes.filter((c) => c.kind === kind).length] as const)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`);
  return (
    <>
      <p>
        {changes.length} {changes.length === 1 ? 'change' : 'changes'}: {counts.join(', ')}.
      </p>
      <ul className="change-list">
        {changes.map((change) => (
          <li key={`${change.kind}:${change.id}`} className={`change change-${change.kind}`}>
            <span className={`badge change-badge-${change.kind}`}>{KIND_LABELS[change.kind]}</span>{' '}
            {describe(change, before, after)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** Asks before publishing, with what publishing changes (read when the dialog opens). */
export function PublishDialog({
  dialogRef,
  regionKey,
  reviewing,
  onClose,
  published,
  unpublished,
  changes,
  draft,
  dirty,
  refused,
  onPublish,
}: {
  dialogRef: RefObject<HTMLDialogElement | null>;
  regionKey: string;
  reviewing: boolean;
  onClose: () => void;
  published: readonly Block[] | null;
  /** The draft (saved or not) differs from what the shop shows, or nothing was published yet. */
  unpublished: boolean;
  changes: readonly BlockChange[];
  draft: readonly Block[];
  dirty: boolean;
  /** The rules find problems in the draft: it cannot be saved or published. */
  refused: boolean;
  onPublish: () => void;
}) {
  return (
    <dialog
      ref={dialogRef}
      aria-labelledby="publish-title"
      className="confirm publish-dialog"
      onClose={onClose}
    >
      <h2 id="publish-title">Publish “{regionKey}”?</h2>
      {reviewing ? (
        <>
          {published === null ? (
            <p>
              This region has never been published: publishing makes your shop show it for the first time.
            </p>
          ) : null}
          {!unpublished ? (
            <p>Nothing to publish: your shop already shows this draft.</p>
          ) : changes.length > 0 ? (
            <ChangeList changes={changes} before={published ?? []} after={draft} />
          ) : (
            <p>The blocks are the same as the published ones.</p>
          )}
          {dirty ? <p className="hint">Your unsaved changes are saved first.</p> : null}
          {refused ? (
            <p className="field-error">
              Fix the problems in the draft first: it cannot be saved or published as it is.
            </p>
          ) : null}
        </>
      ) : null}
      <div className="actions">
        <button type="button" onClick={() => dialogRef.current?.close()}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={!unpublished || refused} onClick={onPublish}>
          {dirty ? 'Save and publish' : 'Publish'}
        </button>
      </div>
    </dialog>
  );
}
