/** The region block tree (spec 2.9): six block types; only `columns` has children. */

export const BLOCK_TYPES = ['heading', 'text', 'image', 'button', 'spacer', 'columns'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

export const SPACER_SIZES = ['sm', 'md', 'lg'] as const;
export type SpacerSize = (typeof SPACER_SIZES)[number];

/** One node of a region tree. Only `columns` carries `children`. */
export type Block =
  | { id: string; type: 'heading'; settings: { text: string; level: 1 | 2 | 3 } }
  | { id: string; type: 'text'; settings: { text: string } }
  | { id: string; type: 'image'; settings: { src: string; alt: string } }
  | { id: string; type: 'button'; settings: { text: string; href: string } }
  | { id: string; type: 'spacer'; settings: { size?: SpacerSize } }
  | { id: string; type: 'columns'; settings: { columns: number }; children?: Block[] };

/** Which input is at fault: a JSON Pointer into the request body and what is wrong there. */
export interface BlockProblem {
  pointer: string;
  detail: string;
}
