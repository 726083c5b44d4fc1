/**
 * The region builder (lazy-loaded): the draft's block tree with a palette, drag and drop and
 * keyboard moves, the selected block's settings checked by the shared rules as they change, a live
 * preview by the shop's own renderer, save (refused while the rules find problems; the server's
 * refusals are shown at their block and field), an unsaved-changes guard, and publish after a view
 * of what changes.
 */
import '@storefront/blocks/blocks.css';
import {
  BLOCK_TYPES,
  childrenOf,
  countBlocks,
  diffBlocks,
  findBlock,
  flattenBlocks,
  insertBlock,
  moveBlock,
  moveProblem,
  newBlock,
  REGION_LIMITS,
  removeBlock,
  renderBlocks,
  toElements,
  uniqueBlockId,
  updateBlock,
  type Block,
  type BlockType,
} from '@storefront/blocks';
import {
  createElement,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type ReactNode,
  type RefObject,
} from 'react';
import { Link, useParams } from 'react-router';
import {
  useCreateRegion,
  usePublishRegion,
  useRegion,
  useSaveRegionDraft,
  type AdminRegion,
} from '../data/regions.ts';
import { formatDateTime } from '../ui/dates.ts';
import { ConfirmButton, Empty, ErrorBanner, Loading, Notice, PageHeader } from '../ui/components.tsx';
import { errorMessage, fieldErrors, isStatus } from '../ui/problems.ts';
import { readingForForm } from '../ui/queries.tsx';
import { Announcer, LeaveGuard, sameJson } from '../screens/content-parts.tsx';
import { BlockInspector, type Move } from './block-form.tsx';
import { BlockTree, INSTRUCTIONS } from './block-tree.tsx';
import { ruleIssues, toIssue, type Issue } from './issues.ts';
import { blockLabel, fieldLabel, placeLabel, TYPE_HINTS, TYPE_LABELS } from './labels.ts';
import { ChangeList } from './publish-review.tsx';
import './builder.css';

/** The wire's tree type is the OpenAPI union; the blocks package's is the same shape. */
const asBlocks = (blocks: unknown): Block[] => blocks as Block[];

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

/** Where the palette adds: a list (null: the top level) and, when it holds the selected block, after it. */
function addPlace(blocks: readonly Block[], selectedId: string | null, chosen: string | null | undefined) {
  const lists = flattenBlocks(blocks).filter(
    (l) =>
      l.block.type === 'columns' &&
      l.depth < REGION_LIMITS.maxDepth &&
      childrenOf(l.block).length < REGION_LIMITS.maxChildren,
  );
  const selected = selectedId === null ? null : findBlock(blocks, selectedId);
  const fromSelection =
    selected?.block.type === 'columns' && lists.some((l) => l.block.id === selected.block.id)
      ? selected.block.id
      : selected?.parentId !== undefined && lists.some((l) => l.block.id === selected.parentId)
        ? selected.parentId
        : null;
  const parentId =
    chosen !== undefined && (chosen === null || lists.some((l) => l.block.id === chosen))
      ? chosen
      : fromSelection;
  const index = selected && selected.parentId === parentId ? selected.index + 1 : undefined;
  return { parentId, index, lists };
}

function Builder({ initial, title }: { initial: AdminRegion; title: string }) {
  const key = initial.key;
  // Each keeps its answer as the region's cached copy (and drops the cached lists).
  const saveDraft = useSaveRegionDraft(key);
  const publishDraft = usePublishRegion(key);
  const [region, setRegion] = useState(initial);
  const saved = useMemo(() => asBlocks(region.draft.blocks), [region]);
  const published = useMemo(() => (region.published ? asBlocks(region.published.blocks) : null), [region]);
  const [draft, setDraft] = useState<Block[]>(saved);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [addTo, setAddTo] = useState<string | null | undefined>(undefined);
  const [serverIssues, setServerIssues] = useState<Issue[]>([]);
  const [failure, setFailure] = useState<unknown>(null);
  const [notice, setNotice] = useState<{ tone: 'success' | 'warning'; text: string } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [busy, setBusy] = useState<'save' | 'publish' | null>(null);
  const [focusProblem, setFocusProblem] = useState(false);
  const publishDialog = useRef<HTMLDialogElement>(null);
  const [reviewing, setReviewing] = useState(false);
  const problemsHeading = useRef<HTMLHeadingElement>(null);
  const blocksHeading = useRef<HTMLHeadingElement>(null);
  const paletteId = useId();
  const addToId = useId();

  const dirty = useMemo(() => !sameJson(draft, saved), [draft, saved]);
  const rules = useMemo(() => ruleIssues(draft), [draft]);
  const issues = useMemo(
    () => [
      ...rules,
      ...serverIssues.filter((i) => i.blockId === null || findBlock(draft, i.blockId) !== null),
    ],
    [rules, serverIssues, draft],
  );
  const issueCount = useCallback((id: string) => issues.filter((i) => i.blockId === id).length, [issues]);
  const selected = selectedId === null ? null : findBlock(draft, selectedId);

  const announce = (text: string) => setAnnouncement(text);

  // After "go to the problem": focus the invalid field of the block just selected.
  useEffect(() => {
    if (!focusProblem) return;
    setFocusProblem(false);
    const field = document.querySelector<HTMLElement>('.inspector [aria-invalid="true"]');
    (field ?? document.querySelector<HTMLElement>('#inspector-heading'))?.focus();
  }, [focusProblem]);

  const select = useCallback((id: string) => {
    setSelectedId(id);
    setAddTo(undefined);
  }, []);

  const edit = (next: Block[]) => {
    setDraft(next);
    setNotice(null);
  };

  const setSetting = (id: string, name: string, value: unknown) => {
    edit(
      updateBlock(
        draft,
        id,
        (block) => ({ ...block, settings: { ...block.settings, [name]: value } }) as Block,
      ),
    );
    setServerIssues((list) => list.filter((i) => !(i.blockId === id && i.field === `settings/${name}`)));
  };

  const place = addPlace(draft, selectedId, addTo);
  const full = countBlocks(draft) >= REGION_LIMITS.maxNodes;
  const add = (type: BlockType) => {
    if (full) return;
    const id = uniqueBlockId(type, draft, published ?? []);
    edit(insertBlock(draft, place.parentId, newBlock(type, id), place.index));
    setSelectedId(id);
    announce(`Added a ${TYPE_LABELS[type].toLowerCase()} block to ${placeLabel(draft, place.parentId)}.`);
  };

  const move = (id: string, to: Move) => {
    const problem = moveProblem(draft, id, to.parentId);
    const block = findBlock(draft, id)?.block;
    if (!block) return;
    if (problem) {
      announce(`${blockLabel(block)} ${problem}.`);
      return;
    }
    const next = moveBlock(draft, id, to.parentId, to.index);
    edit(next);
    const now = findBlock(next, id);
    if (now) {
      const count = (to.parentId === null ? next : childrenOf(findBlock(next, to.parentId)!.block)).length;
      announce(
        `Moved ${blockLabel(block)} to position ${now.index + 1} of ${count} in ${placeLabel(next, now.parentId)}.`,
      );
    }
  };

  const remove = (id: string) => {
    const block = findBlock(draft, id)?.block;
    edit(removeBlock(draft, id));
    setSelectedId(null);
    if (block) announce(`Removed ${blockLabel(block)}.`);
    blocksHeading.current?.focus();
  };

  /** Saves the draft; false when the rules or the server refuse it (the problems are then shown at their blocks). */
  const save = async (): Promise<boolean> => {
    if (rules.length > 0) {
      setFailure(null);
      setNotice({
        tone: 'warning',
        text: `Fix the ${rules.length === 1 ? 'problem' : `${rules.length} problems`} below before saving.`,
      });
      problemsHeading.current?.focus();
      return false;
    }
    const sent = draft;
    setBusy('save');
    setFailure(null);
    setNotice(null);
    try {
      setRegion(await saveDraft.mutateAsync(sent));
      setServerIssues([]);
      announce('Draft saved.');
      return true;
    } catch (error) {
      const errors = fieldErrors(error);
      setFailure(error);
      if (errors.length > 0) {
        const mapped = errors.map((e) => toIssue(sent, e, 'server'));
        setServerIssues(mapped);
        const first = mapped.find((i) => i.blockId !== null);
        if (first?.blockId) setSelectedId(first.blockId);
      }
      requestAnimationFrame(() => problemsHeading.current?.focus());
      return false;
    } finally {
      setBusy(null);
    }
  };

  const onSave = async () => {
    if (await save()) {
      setNotice({
        tone: 'success',
        text: 'Draft saved. Your shop keeps showing the published version until you publish.',
      });
    }
  };

  const publish = async () => {
    publishDialog.current?.close();
    if (dirty && !(await save())) return;
    setBusy('publish');
    setFailure(null);
    try {
      // The region as the server has it now (draft, published tree, whether they differ).
      const { publishedAt, region: now } = await publishDraft.mutateAsync();
      setRegion(now);
      setNotice({
        tone: 'success',
        text: `Published ${formatDateTime(publishedAt)}. Your shop shows this version now.`,
      });
      announce('Published.');
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(null);
    }
  };

  const unpublished = dirty || region.hasUnpublishedChanges || published === null;
  const changes = useMemo(
    () => (reviewing ? diffBlocks(published ?? [], draft) : []),
    [reviewing, published, draft],
  );
  // A refusal that names fields is shown at them (the problems panel), and goes as each is fixed;
  // only one that names none stays above the builder until the next save.
  const failureWithoutField = failure !== null && fieldErrors(failure).length === 0;

  const preview = useMemo(
    () =>
      toElements<ReactNode>(renderBlocks(draft), (tag, props, ...children) =>
        createElement(tag, props, ...children),
      ),
    [draft],
  );

  return (
    <>
      <PageHeader
        title={title}
        actions={
          <>
            {dirty ? (
              <ConfirmButton
                title="Discard your changes?"
                body={<p>The builder goes back to the last saved draft.</p>}
                confirmLabel="Discard changes"
                onConfirm={() => {
                  setDraft(saved);
                  setServerIssues([]);
                  setFailure(null);
                  setSelectedId(null);
                  announce('Changes discarded.');
                }}
              >
                Discard changes
              </ConfirmButton>
            ) : null}
            <button type="button" onClick={() => void onSave()} disabled={busy !== null}>
              {busy === 'save' ? 'Saving…' : 'Save draft'}
            </button>
            <button
              type="button"
              className="primary"
              disabled={busy !== null}
              onClick={() => {
                setReviewing(true);
                publishDialog.current?.showModal();
              }}
            >
              {busy === 'publish' ? 'Publishing…' : 'Review and publish…'}
            </button>
          </>
        }
      >
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
      </PageHeader>
      <LeaveGuard when={dirty} what="changes to this region" />
      <Announcer message={announcement} />

      {notice ? <Notice tone={notice.tone}>{notice.text}</Notice> : null}
      {failureWithoutField ? <ErrorBanner error={failure} /> : null}
      <ProblemsPanel
        issues={issues}
        blocks={draft}
        headingRef={problemsHeading}
        failure={failure}
        onGo={(issue) => {
          if (issue.blockId) {
            setSelectedId(issue.blockId);
            setFocusProblem(true);
          }
        }}
      />

      <div className="builder-grid">
        <section className="panel builder-blocks" aria-labelledby="blocks-heading">
          <h2 id="blocks-heading" tabIndex={-1} ref={blocksHeading}>
            Blocks{' '}
            <span className="muted count">
              ({countBlocks(draft)} of {REGION_LIMITS.maxNodes})
            </span>
          </h2>
          <div className="palette" role="group" aria-labelledby={paletteId}>
            <p id={paletteId} className="palette-label">
              Add a block
            </p>
            <div className="field add-to">
              <label htmlFor={addToId}>Add to</label>
              <select
                id={addToId}
                value={place.parentId ?? ''}
                onChange={(e) => setAddTo(e.target.value === '' ? null : e.target.value)}
              >
                <option value="">The top level</option>
                {place.lists.map((l) => (
                  <option key={l.block.id} value={l.block.id}>
                    Inside {blockLabel(l.block)}
                  </option>
                ))}
              </select>
            </div>
            <div className="palette-buttons">
              {BLOCK_TYPES.map((type) => (
                <button
                  key={type}
                  type="button"
                  title={TYPE_HINTS[type]}
                  onClick={() => add(type)}
                  disabled={full}
                >
                  <span aria-hidden="true">+ </span>
                  <span className="visually-hidden">Add </span>
                  {TYPE_LABELS[type]}
                </button>
              ))}
            </div>
            {full ? (
              <p className="hint">
                A region holds at most {REGION_LIMITS.maxNodes} blocks; remove one to add another.
              </p>
            ) : null}
          </div>
          <p className="hint">{INSTRUCTIONS}</p>
          <BlockTree
            blocks={draft}
            onChange={edit}
            selectedId={selectedId}
            onSelect={select}
            issueCount={issueCount}
            label="Blocks of the region"
          />
        </section>

        <section className="panel builder-inspector" aria-labelledby="inspector-heading">
          <h2 id="inspector-heading" tabIndex={-1}>
            {selected ? `${TYPE_LABELS[selected.block.type]} settings` : 'Block settings'}
          </h2>
          {selected ? (
            <BlockInspector
              blocks={draft}
              blockId={selected.block.id}
              issues={issues}
              onSetting={setSetting}
              onMove={move}
              onRemove={remove}
            />
          ) : (
            <p className="muted">Select a block in the list to edit its settings and position.</p>
          )}
        </section>
      </div>

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

      <dialog
        ref={publishDialog}
        aria-labelledby="publish-title"
        className="confirm publish-dialog"
        onClose={() => setReviewing(false)}
      >
        <h2 id="publish-title">Publish “{key}”?</h2>
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
            {rules.length > 0 ? (
              <p className="field-error">
                Fix the problems in the draft first: it cannot be saved or published as it is.
              </p>
            ) : null}
          </>
        ) : null}
        <div className="actions">
          <button type="button" onClick={() => publishDialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            className="primary"
            disabled={!unpublished || rules.length > 0}
            onClick={() => void publish()}
          >
            {dirty ? 'Save and publish' : 'Publish'}
          </button>
        </div>
      </dialog>
    </>
  );
}

function ProblemsPanel({
  issues,
  blocks,
  headingRef,
  failure,
  onGo,
}: {
  issues: readonly Issue[];
  blocks: readonly Block[];
  headingRef: RefObject<HTMLHeadingElement | null>;
  failure: unknown;
  onGo: (issue: Issue) => void;
}) {
  if (issues.length === 0) return null;
  const fromServer = issues.some((i) => i.source === 'server');
  return (
    <section className="banner error problems" aria-labelledby="problems-heading">
      <h2 id="problems-heading" tabIndex={-1} ref={headingRef}>
        {issues.length === 1 ? '1 problem' : `${issues.length} problems`} to fix before saving
      </h2>
      {fromServer && failure ? <p>The server refused the draft: {errorMessage(failure)}</p> : null}
      <ul>
        {issues.map((issue, i) => {
          const block = issue.blockId === null ? null : (findBlock(blocks, issue.blockId)?.block ?? null);
          return (
            <li key={`${issue.source}:${issue.blockId ?? ''}:${issue.field}:${i}`}>
              {block ? (
                <button type="button" className="link" onClick={() => onGo(issue)}>
                  {blockLabel(block)}
                </button>
              ) : (
                'The region'
              )}
              {block ? ` · ${fieldLabel(block, issue.field)}` : ''} {issue.detail}
              {issue.source === 'server' ? <span className="muted"> (refused by the server)</span> : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
