/** The region builder's problems: each names its block (a link that selects it) and field. */
import { findBlock, type Block } from '@storefront/blocks';
import type { RefObject } from 'react';
import { errorMessage } from '../ui/problems.ts';
import type { Issue } from './issues.ts';
import { blockLabel, fieldLabel } from './labels.ts';

export function ProblemsPanel({
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
