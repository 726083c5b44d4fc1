/** JSON Pointers into a region body (`/blocks/2/children/0/settings/href`) and the blocks they name. */
import type { Block } from './types.ts';

/** The block a pointer is inside of and the rest of the pointer after it (`settings/href`), or null. */
export function blockAtPointer(
  blocks: readonly Block[],
  pointer: string,
): { block: Block; path: string; rest: string } | null {
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (tokens[0] !== 'blocks') return null;
  let list: readonly Block[] | undefined = blocks;
  let found: { block: Block; path: string; rest: string } | null = null;
  let i = 1;
  let path = '/blocks';
  while (list && i < tokens.length) {
    const index = Number(tokens[i]);
    const block: Block | undefined = Number.isInteger(index) ? list[index] : undefined;
    if (!block) break;
    path += `/${index}`;
    found = { block, path, rest: tokens.slice(i + 1).join('/') };
    if (tokens[i + 1] === 'children' && block.type === 'columns') {
      list = block.children;
      path += '/children';
      i += 2;
    } else break;
  }
  return found;
}
