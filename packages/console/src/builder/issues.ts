/**
 * Problems of a draft, attached to blocks: the shared rules' (`regionProblems`, the server's own
 * validator, run on every change) and the server's (a 400's `errors[]`), both by JSON Pointer and
 * mapped to the block and field with `blockAtPointer`, so they stay on their block when it moves.
 */
import { blockAtPointer, regionProblems, type Block, type BlockProblem } from '@storefront/blocks';

export interface Issue {
  /** The block at fault, or null for the region as a whole (`/blocks`: too many blocks, too large). */
  blockId: string | null;
  /** Inside the block: `settings/href`, `id`, `children`, or '' for the block itself. */
  field: string;
  detail: string;
  /** The rules found it as the merchant edited, or the server refused the saved draft with it. */
  source: 'rules' | 'server';
}

export function toIssue(blocks: readonly Block[], problem: BlockProblem, source: Issue['source']): Issue {
  const at = blockAtPointer(blocks, problem.pointer);
  return at
    ? { blockId: at.block.id, field: at.rest, detail: problem.detail, source }
    : { blockId: null, field: problem.pointer, detail: problem.detail, source };
}

/** What the shared rules say of the draft now. */
export function ruleIssues(blocks: readonly Block[]): Issue[] {
  return regionProblems({ blocks }).map((problem) => toIssue(blocks, problem, 'rules'));
}

/** The message(s) for one field of one block. */
export function issueAt(issues: readonly Issue[], blockId: string, field: string): string | undefined {
  const details = issues.filter((i) => i.blockId === blockId && i.field === field).map((i) => i.detail);
  return details.length > 0 ? [...new Set(details)].join('; ') : undefined;
}
