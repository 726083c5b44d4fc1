/**
 * One region's builder: the draft's block tree with a palette (palette.tsx), drag and drop and
 * keyboard moves (block-tree.tsx), the selected block's settings (block-form.tsx) checked by the
 * shared rules as they change, the preview (preview.tsx), save, and publish after a view of what
 * changes (publish-review.tsx).
 */
import {
  childrenOf,
  countBlocks,
  diffBlocks,
  findBlock,
  insertBlock,
  moveBlock,
  moveProblem,
  newBlock,
  REGION_LIMITS,
  removeBlock,
  uniqueBlockId,
  updateBlock,
  type Block,
  type BlockType,
} from '@storefront/blocks';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { usePublishRegion, useSaveRegionDraft, type AdminRegion } from '../data/regions.ts';
import { formatDateTime } from '../ui/dates.ts';
import { ConfirmButton, ErrorBanner, Notice, PageHeader } from '../ui/components.tsx';
import { fieldErrors } from '../ui/problems.ts';
import { Announcer, LeaveGuard, sameJson } from '../screens/content-parts.tsx';
import { BlockInspector, type Move } from './block-form.tsx';
import { BlockTree, INSTRUCTIONS } from './block-tree.tsx';
import { ruleIssues, toIssue, type Issue } from './issues.ts';
import { blockLabel, placeLabel, TYPE_LABELS } from './labels.ts';
import { addPlace, Palette } from './palette.tsx';
import { ProblemsPanel } from './problems-panel.tsx';
import { RegionPreview, RegionStatus } from './preview.tsx';
import { PublishDialog } from './publish-review.tsx';

/** The wire's tree type is the OpenAPI union; the blocks package's is the same shape. */
const asBlocks = (blocks: unknown): Block[] => blocks as Block[];

export function Builder({ initial, title }: { initial: AdminRegion; title: string }) {
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
        <RegionStatus region={region} published={published !== null} dirty={dirty} />
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
          <Palette
            place={place}
            full={full}
            maxBlocks={REGION_LIMITS.maxNodes}
            onAddTo={setAddTo}
            onAdd={add}
          />
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

      <RegionPreview blocks={draft} />

      <PublishDialog
        dialogRef={publishDialog}
        regionKey={key}
        reviewing={reviewing}
        onClose={() => setReviewing(false)}
        published={published}
        unpublished={unpublished}
        changes={changes}
        draft={draft}
        dirty={dirty}
        refused={rules.length > 0}
        onPublish={() => void publish()}
      />
    </>
  );
}
