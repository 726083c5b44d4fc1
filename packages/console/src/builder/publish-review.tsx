/** What publishing changes: the blocks added, removed, edited and moved between the published tree and the draft. */
import type { Block, BlockChange, BlockPlace } from '@storefront/blocks';
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
