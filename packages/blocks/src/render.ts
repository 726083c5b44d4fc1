/**
 * The block renderer, once (decision `front-ends-on-the-public-api`): the shop renders published regions with it and the
 * console's builder renders its live preview with it, so the preview is what shoppers will see.
 *
 * It returns a neutral element tree (tag, attributes, children) that any `createElement` turns into
 * elements (React's, Preact's, or a DOM one): texts stay strings, so a framework escapes them and no
 * HTML is ever parsed from content; link and image URLs are checked again here with the server's
 * own rules (a value that would not pass today is dropped: a button becomes plain text, an image
 * is left out), so a tree stored before a rule tightened cannot smuggle a `javascript:` URL.
 */
import { urlProblem } from './text.ts';
import type { Block } from './types.ts';

export type RenderTag = 'h1' | 'h2' | 'h3' | 'p' | 'img' | 'a' | 'span' | 'div';

export interface RenderElement {
  tag: RenderTag;
  /** A stable key among siblings (the block id, or the block id plus a suffix). */
  key: string;
  /** Attributes, always strings: `className`, `href`, `src`, `alt`, `rel`, `data-block-id`. */
  props: Record<string, string>;
  children: RenderNode[];
}
export type RenderNode = string | RenderElement;

const el = (
  tag: RenderTag,
  key: string,
  props: Record<string, string>,
  children: RenderNode[] = [],
): RenderElement => ({ tag, key, props, children });

/** The URL when it passes the content rules for its use, else null. */
export function safeUrl(value: unknown, use: 'image' | 'link'): string | null {
  return typeof value === 'string' && urlProblem(value, use) === null ? value : null;
}

function renderBlock(block: Block, depth: number): RenderElement | null {
  const base = { 'data-block-id': block.id };
  switch (block.type) {
    case 'heading': {
      const level = block.settings.level === 1 || block.settings.level === 3 ? block.settings.level : 2;
      return el(`h${level}`, block.id, { ...base, className: 'sf-block sf-heading' }, [
        String(block.settings.text ?? ''),
      ]);
    }
    case 'text':
      return el('p', block.id, { ...base, className: 'sf-block sf-text' }, [
        String(block.settings.text ?? ''),
      ]);
    case 'image': {
      const src = safeUrl(block.settings.src, 'image');
      if (src === null) return null;
      return el('img', block.id, {
        ...base,
        className: 'sf-block sf-image',
        src,
        alt: String(block.settings.alt ?? ''),
        loading: 'lazy',
        decoding: 'async',
      });
    }
    case 'button': {
      const text = String(block.settings.text ?? '');
      const href = safeUrl(block.settings.href, 'link');
      if (href === null) return el('span', block.id, { ...base, className: 'sf-block sf-button' }, [text]);
      const external = /^https?:/i.test(href);
      return el(
        'a',
        block.id,
        {
          ...base,
          className: 'sf-block sf-button',
          href,
          ...(external ? { rel: 'noopener noreferrer' } : {}),
        },
        [text],
      );
    }
    case 'spacer': {
      const size = block.settings.size === 'sm' || block.settings.size === 'lg' ? block.settings.size : 'md';
      return el('div', block.id, {
        ...base,
        className: `sf-block sf-spacer sf-spacer-${size}`,
        'aria-hidden': 'true',
      });
    }
    case 'columns': {
      const columns = Math.min(12, Math.max(1, Math.trunc(Number(block.settings.columns) || 1)));
      return el(
        'div',
        block.id,
        { ...base, className: `sf-block sf-columns sf-columns-${columns}` },
        depth >= 4 ? [] : renderList(block.children ?? [], depth + 1),
      );
    }
    default:
      return null;
  }
}

function renderList(blocks: readonly Block[], depth: number): RenderElement[] {
  const out: RenderElement[] = [];
  for (const block of blocks) {
    const rendered = renderBlock(block, depth);
    if (rendered) out.push(rendered);
  }
  return out;
}

/** The element tree of a region's blocks. */
export function renderBlocks(blocks: readonly Block[]): RenderElement[] {
  return renderList(Array.isArray(blocks) ? blocks : [], 1);
}

/** A `createElement` as React, Preact and others have it. */
export type CreateElement<E> = (
  tag: string,
  props: Record<string, string> & { key: string },
  ...children: (E | string)[]
) => E;

/** Turns the element tree into a framework's elements: `toElements(renderBlocks(blocks), React.createElement)`. */
export function toElements<E>(nodes: readonly RenderNode[], createElement: CreateElement<E>): (E | string)[] {
  return nodes.map((node) =>
    typeof node === 'string'
      ? node
      : createElement(
          node.tag,
          { ...node.props, key: node.key },
          ...toElements(node.children, createElement),
        ),
  );
}
