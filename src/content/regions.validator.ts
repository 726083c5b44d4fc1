import { regionProblems, summarizeProblems, type Block } from '@storefront/blocks';
import { validationFailed } from '../lib/errors.ts';

export { REGION_LIMITS } from '@storefront/blocks';

/**
 * Validates a region draft body `{blocks}` against every rule of the block reference (the shared
 * rules of `@storefront/blocks`, which the console's builder also runs) and returns the tree.
 * Throws 400 validation_failed listing every problem (up to maxErrors), each with the JSON Pointer
 * of the offending node or field, e.g. `/blocks/2/children/0/settings/href`.
 */
export function validateRegionBody(body: unknown): { blocks: Block[] } {
  const problems = regionProblems(body);
  if (problems.length > 0) {
    throw validationFailed(
      summarizeProblems(problems),
      problems.map((problem) => ({ ...problem, in: 'body' as const })),
    );
  }
  return body as { blocks: Block[] };
}
