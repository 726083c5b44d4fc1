import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  blockAtPointer,
  regionProblems,
  renderBlocks,
  toElements,
  type Block,
  type RenderNode,
} from '@storefront/blocks';

/** A tiny createElement that prints markup, escaping text: what a framework does. */
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const h = (tag: string, props: Record<string, string>, ...children: string[]): string => {
  const attrs = Object.entries(props)
    .filter(([k]) => k !== 'key')
    .map(([k, v]) => ` ${k === 'className' ? 'class' : k}="${escape(v)}"`)
    .join('');
  return `<${tag}${attrs}>${children.map((c) => (c.startsWith('<') ? c : escape(c))).join('')}</${tag}>`;
};
const html = (blocks: Block[]) => toElements(renderBlocks(blocks), h).join('');

describe('renderBlocks', () => {
  test('renders the six types, nested columns, texts as text', () => {
    const out = html([
      { id: 'h', type: 'heading', settings: { text: 'Hi <b>there</b>', level: 1 } },
      {
        id: 'c',
        type: 'columns',
        settings: { columns: 2 },
        children: [
          { id: 't', type: 'text', settings: { text: 'Para' } },
          { id: 'i', type: 'image', settings: { src: 'https://cdn.example/x.png', alt: 'X' } },
        ],
      },
      { id: 'b', type: 'button', settings: { text: 'Shop', href: '/shop' } },
      { id: 's', type: 'spacer', settings: {} },
    ]);
    assert.match(
      out,
      /<h1 data-block-id="h" class="sf-block sf-heading">Hi &#60;b&#62;there&#60;\/b&#62;<\/h1>/,
    );
    assert.match(
      out,
      /<div data-block-id="c" class="sf-block sf-columns sf-columns-2"><p [^>]*>Para<\/p><img [^>]*src="https:\/\/cdn.example\/x.png"/,
    );
    assert.match(out, /<a data-block-id="b" class="sf-block sf-button" href="\/shop">Shop<\/a>/);
    assert.match(out, /sf-spacer-md/);
  });

  test('re-checks URLs: a javascript: link becomes text, a data: image is left out', () => {
    const blocks = [
      { id: 'b', type: 'button', settings: { text: 'Click', href: 'java\tscript:alert(1)' } },
      { id: 'i', type: 'image', settings: { src: 'data:image/png;base64,AAAA', alt: '' } },
      { id: 'j', type: 'image', settings: { src: 'http://insecure.example/x.png', alt: '' } },
    ] as Block[];
    const nodes: RenderNode[] = renderBlocks(blocks);
    assert.equal(nodes.length, 1);
    assert.deepEqual(nodes[0], {
      tag: 'span',
      key: 'b',
      props: { 'data-block-id': 'b', className: 'sf-block sf-button' },
      children: ['Click'],
    });
  });
});

describe('the shared rules', () => {
  test('name the same pointers the server answers with, and blockAtPointer finds the block', () => {
    const blocks = [
      {
        id: 'c',
        type: 'columns',
        settings: { columns: 2 },
        children: [{ id: 'b', type: 'button', settings: { text: 'x', href: 'javascript:alert(1)' } }],
      },
    ] as Block[];
    const problems = regionProblems({ blocks });
    assert.deepEqual(problems, [
      { pointer: '/blocks/0/children/0/settings/href', detail: 'must not be a javascript: URL' },
    ]);
    const at = blockAtPointer(blocks, problems[0]!.pointer);
    assert.equal(at?.block.id, 'b');
    assert.equal(at?.rest, 'settings/href');
    assert.equal(blockAtPointer(blocks, '/blocks/0/settings/columns')?.block.id, 'c');
    assert.equal(blockAtPointer(blocks, '/blocks'), null);
  });
});
