/**
 * Every rule of the block reference (docs/content.md), through PUT /admin/v1/regions/:key/draft:
 * each refusal is a 400 validation_failed whose pointers name the offending nodes or fields, each
 * limit is accepted exactly and refused one past it, and a refused write records nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { assertNotFound, clients, pointersOf } from './content.test-support.ts';

let t: TestApp;
let api: ReturnType<typeof clients>;
let shop: TestStore;
before(async () => {
  t = await startTestApp();
  api = clients(t);
  shop = await createTestStore(t);
});
after(async () => {
  // No refused write ever created a region or recorded an event.
  assert.deepEqual(await api.contentEvents(shop), []);
  await t.close();
});

type Node = Record<string, unknown>;
let counter = 0;
const nextId = () => `n${++counter}`;
const heading = (extra: Node = {}): Node => ({
  id: nextId(),
  type: 'heading',
  settings: { text: 'Hi', level: 2 },
  ...extra,
});
const text = (value = 'Some text.', extra: Node = {}): Node => ({
  id: nextId(),
  type: 'text',
  settings: { text: value },
  ...extra,
});
const columns = (children: Node[], count = 2): Node => ({
  id: nextId(),
  type: 'columns',
  settings: { columns: count },
  children,
});

/** Saves the draft of a fresh region and returns the response. */
const save = (body: unknown) => t.admin(shop).put(`/regions/r-${++counter}/draft`, body);

async function accepted(blocks: unknown[]): Promise<void> {
  const response = await save({ blocks });
  assert.equal(response.statusCode, 200, response.body);
  assert.deepEqual(response.json<{ draft: { blocks: unknown } }>().draft.blocks, blocks);
}

async function refused(body: unknown, pointers: string[], detail?: RegExp): Promise<void> {
  const key = `bad-${++counter}`;
  const response = await t.admin(shop).put(`/regions/${key}/draft`, body);
  assert.deepEqual(pointersOf(response), pointers, JSON.stringify(body).slice(0, 200));
  if (detail) {
    const errors = response.json<{ errors: { detail: string; in: string }[] }>().errors;
    assert.match(errors[0]!.detail, detail);
    assert.equal(errors[0]!.in, 'body');
  }
  assertNotFound(await t.admin(shop).get(`/regions/${key}/draft`));
}

/** A chain of columns nested `depth` levels deep, a text block at the bottom. */
function nested(depth: number): Node {
  let node: Node = text('deepest');
  for (let level = depth - 1; level >= 1; level--) node = columns([node], 1);
  return node;
}

describe('region rules: the body and the node shape', () => {
  test('the body is {blocks: [...]} and nothing else', async () => {
    await accepted([]);
    await refused({}, ['/blocks'], /required/);
    await refused({ blocks: {} }, ['/blocks'], /array/);
    await refused({ blocks: null }, ['/blocks']);
    await refused({ blocks: [], published: true }, ['/published'], /not a known field/);
    await refused([], ['/'], /object/);
  });

  test('a node is an object with id, type, settings and (columns only) children: no other keys', async () => {
    await refused({ blocks: ['text'] }, ['/blocks/0'], /block object/);
    await refused({ blocks: [heading(), null] }, ['/blocks/1']);
    await refused({ blocks: [[heading()]] }, ['/blocks/0']);
    await refused({ blocks: [heading({ style: 'bold' })] }, ['/blocks/0/style'], /not a known field/);
    await refused({ blocks: [heading({ 'a/b~c': 1 })] }, ['/blocks/0/a~1b~0c'], /not a known field/);
    await refused({ blocks: [{ type: 'text', settings: { text: 'x' } }] }, ['/blocks/0/id'], /required/);
    await refused({ blocks: [{ id: 'a', settings: { text: 'x' } }] }, ['/blocks/0/type'], /required/);
    await refused({ blocks: [{ id: 'a', type: 'text' }] }, ['/blocks/0/settings'], /required/);
    await refused({ blocks: [{ id: 'a', type: 'text', settings: ['x'] }] }, ['/blocks/0/settings'], /object/);
    await refused({ blocks: [{ id: 'a', type: 'text', settings: null }] }, ['/blocks/0/settings'], /object/);
    await refused({ blocks: [{ id: 'a', type: 'text', settings: 'x' }] }, ['/blocks/0/settings'], /object/);
  });

  test('only the six types, spelled exactly', async () => {
    for (const type of ['video', 'Heading', 'HTML', 'html', '', 3, null]) {
      await refused(
        { blocks: [{ id: 'a', type, settings: {} }] },
        ['/blocks/0/type'],
        /must be one of heading, text, image, button, spacer, columns/,
      );
    }
  });

  test('ids: non-empty strings of at most 64 characters, unique across the whole tree', async () => {
    await accepted([{ id: 'x'.repeat(64), type: 'spacer', settings: {} }]);
    await accepted([{ id: '😀'.repeat(64), type: 'spacer', settings: {} }]);
    await refused(
      { blocks: [{ id: 'x'.repeat(65), type: 'spacer', settings: {} }] },
      ['/blocks/0/id'],
      /at most 64/,
    );
    await refused({ blocks: [{ id: '', type: 'spacer', settings: {} }] }, ['/blocks/0/id'], /empty/);
    await refused({ blocks: [{ id: 7, type: 'spacer', settings: {} }] }, ['/blocks/0/id'], /string/);
    await refused({ blocks: [{ id: 'a\u0000', type: 'spacer', settings: {} }] }, ['/blocks/0/id'], /NUL/);
    await refused(
      {
        blocks: [
          { id: 'same', type: 'spacer', settings: {} },
          { id: 'same', type: 'spacer', settings: {} },
        ],
      },
      ['/blocks/1/id'],
      /repeats the id of \/blocks\/0/,
    );
    await refused(
      {
        blocks: [
          {
            id: 'dup',
            type: 'columns',
            settings: { columns: 2 },
            children: [text(), { id: 'dup', type: 'spacer', settings: {} }],
          },
        ],
      },
      ['/blocks/0/children/1/id'],
      /unique/,
    );
  });

  test('children: only columns have them, as an array; leaves must not carry the key at all', async () => {
    await accepted([{ id: 'c', type: 'columns', settings: { columns: 3 } }]);
    await accepted([{ id: 'c', type: 'columns', settings: { columns: 3 }, children: [] }]);
    for (const leaf of [heading(), text(), { id: nextId(), type: 'spacer', settings: {} }]) {
      await refused(
        { blocks: [{ ...leaf, children: [] }] },
        ['/blocks/0/children'],
        /only columns blocks have children/,
      );
      await refused({ blocks: [{ ...leaf, children: [text()] }] }, ['/blocks/0/children']);
    }
    await refused(
      { blocks: [{ id: 'c', type: 'columns', settings: { columns: 2 }, children: {} }] },
      ['/blocks/0/children'],
      /array/,
    );
    await refused({ blocks: [{ id: 'c', type: 'columns', settings: { columns: 2 }, children: null }] }, [
      '/blocks/0/children',
    ]);
  });
});

describe('region rules: settings of each type', () => {
  test('heading {text (required), level 1–3 (required)}', async () => {
    await accepted([
      heading(),
      { id: 'h1', type: 'heading', settings: { text: 'A', level: 1 } },
      { id: 'h3', type: 'heading', settings: { text: 'A', level: 3 } },
    ]);
    const h = (settings: Node) => ({ blocks: [{ id: 'h', type: 'heading', settings }] });
    await refused(h({ level: 1 }), ['/blocks/0/settings/text'], /required/);
    await refused(h({ text: 'A' }), ['/blocks/0/settings/level'], /required/);
    await refused(h({ text: '', level: 1 }), ['/blocks/0/settings/text'], /empty/);
    await refused(h({ text: 5, level: 1 }), ['/blocks/0/settings/text'], /string/);
    for (const level of [0, 4, 2.5, '2', null, -1]) {
      await refused(h({ text: 'A', level }), ['/blocks/0/settings/level'], /integer from 1 to 3/);
    }
    await refused(
      h({ text: 'A', level: 1, color: 'red' }),
      ['/blocks/0/settings/color'],
      /not a setting of heading blocks/,
    );
    await refused(h({ text: 'A', level: 1, size: 'lg' }), ['/blocks/0/settings/size']);
  });

  test('text {text (required)}', async () => {
    await accepted([text('Line one.\n\nLine two. <b>not html</b>')]);
    const x = (settings: Node) => ({ blocks: [{ id: 't', type: 'text', settings }] });
    await refused(x({}), ['/blocks/0/settings/text'], /required/);
    await refused(x({ text: '' }), ['/blocks/0/settings/text'], /empty/);
    await refused(x({ text: 'a', level: 1 }), ['/blocks/0/settings/level'], /not a setting of text blocks/);
    await refused(x({ text: 'a', html: '<p>' }), ['/blocks/0/settings/html']);
    await refused(x({ text: 'a\u0000b' }), ['/blocks/0/settings/text'], /NUL/);
    await refused(x({ text: 'a\udc00b' }), ['/blocks/0/settings/text'], /surrogate/);
  });

  test('image {src (https or relative), alt (required, may be empty)}', async () => {
    const img = (settings: Node) => ({ id: nextId(), type: 'image', settings });
    await accepted([
      img({ src: 'https://cdn.shop.example/a.jpg', alt: 'A shirt' }),
      img({ src: '/files/a.jpg', alt: '' }),
      img({ src: 'files/a.jpg?w=300', alt: '' }),
    ]);
    const one = (settings: Node) => ({ blocks: [{ id: 'i', type: 'image', settings }] });
    await refused(one({ alt: '' }), ['/blocks/0/settings/src'], /required/);
    await refused(one({ src: '/a.jpg' }), ['/blocks/0/settings/alt'], /required/);
    await refused(one({ src: '', alt: '' }), ['/blocks/0/settings/src'], /empty/);
    await refused(one({ src: '/a.jpg', alt: null }), ['/blocks/0/settings/alt'], /string/);
    for (const [src, detail] of [
      ['http://cdn.shop.example/a.jpg', /https URL or a relative URL/],
      ['//cdn.shop.example/a.jpg', /protocol-relative/],
      ['data:image/png;base64,iVBORw0KGgo=', /data: URL/],
      ['javascript:alert(1)', /javascript: URL/],
      ['ftp://cdn.shop.example/a.jpg', /https URL/],
      ['https://user:pw@cdn.shop.example/a.jpg', /user name/],
    ] as const) {
      await refused(one({ src, alt: '' }), ['/blocks/0/settings/src'], detail);
    }
    await refused(
      one({ src: '/a.jpg', alt: '', width: 300 }),
      ['/blocks/0/settings/width'],
      /not a setting of image/,
    );
  });

  test('button {text, href}: http(s), mailto:, tel:, relative; javascript:/data:/vbscript: refused however written', async () => {
    const button = (href: string): Node => ({ id: nextId(), type: 'button', settings: { text: 'Go', href } });
    await accepted(
      [
        'https://shop.example/sale',
        'http://shop.example',
        'mailto:hello@shop.example',
        'tel:+15550100',
        '/collections/sale',
        'collections/sale',
        '#newsletter',
        '?page=2',
      ].map(button),
    );
    const disguised = [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      '\t\n javascript:alert(1)',
      '\u0008javascript:alert(1)',
      '\u001fjavascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      'java\r\nscript:alert(1)',
      'jav\u0009ascript:alert(1)',
      '&#106;avascript:alert(1)',
      '&#x6a;avascript:alert(1)',
      'javascript&colon;alert(1)',
    ];
    for (const href of disguised) {
      await refused({ blocks: [text(), button(href)] }, ['/blocks/1/settings/href'], /javascript: URL/);
    }
    // A NUL is refused before any rule runs, like every NUL in any input (decision `input-hygiene`).
    await refused(
      { blocks: [text(), button('\u0000javascript:alert(1)')] },
      ['/blocks/1/settings/href'],
      /NUL/,
    );
    for (const href of ['data:text/html,<script>alert(1)</script>', ' DATA:text/html,x', 'da\tta:x']) {
      await refused({ blocks: [button(href)] }, ['/blocks/0/settings/href'], /data: URL/);
    }
    for (const href of ['vbscript:msgbox(1)', 'VBSCRIPT:x', 'vb\nscript:x']) {
      await refused({ blocks: [button(href)] }, ['/blocks/0/settings/href'], /vbscript: URL/);
    }
    for (const href of [
      'ftp://x.example',
      'file:///etc/passwd',
      '//evil.example',
      '/\\evil.example',
      'https://a b',
      'mailto:',
    ]) {
      await refused({ blocks: [button(href)] }, ['/blocks/0/settings/href']);
    }
    await refused(
      { blocks: [{ id: 'b', type: 'button', settings: { href: '/x' } }] },
      ['/blocks/0/settings/text'],
      /required/,
    );
    await refused(
      { blocks: [{ id: 'b', type: 'button', settings: { text: 'Go' } }] },
      ['/blocks/0/settings/href'],
      /required/,
    );
    await refused(
      { blocks: [{ id: 'b', type: 'button', settings: { text: 'Go', href: '/x', target: '_blank' } }] },
      ['/blocks/0/settings/target'],
    );
  });

  test('spacer {size?: sm | md | lg}', async () => {
    await accepted([
      ...['sm', 'md', 'lg'].map((size) => ({ id: nextId(), type: 'spacer', settings: { size } })),
      { id: nextId(), type: 'spacer', settings: {} },
    ]);
    for (const size of ['xl', 'SM', 24, null, '']) {
      await refused(
        { blocks: [{ id: 's', type: 'spacer', settings: { size } }] },
        ['/blocks/0/settings/size'],
        /one of sm, md, lg/,
      );
    }
    await refused(
      { blocks: [{ id: 's', type: 'spacer', settings: { height: 10 } }] },
      ['/blocks/0/settings/height'],
      /not a setting of spacer/,
    );
  });

  test('columns {columns: 1–12 (required)}', async () => {
    await accepted([columns([text()], 1), columns([text()], 12)]);
    const c = (settings: Node) => ({ blocks: [{ id: 'c', type: 'columns', settings, children: [] }] });
    await refused(c({}), ['/blocks/0/settings/columns'], /required/);
    for (const count of [0, 13, 1.5, '2', -1]) {
      await refused(c({ columns: count }), ['/blocks/0/settings/columns'], /integer from 1 to 12/);
    }
    await refused(c({ columns: 2, gap: 'lg' }), ['/blocks/0/settings/gap'], /not a setting of columns/);
  });

  test('string settings: at most 5000 characters', async () => {
    await accepted([
      text('x'.repeat(5000)),
      text('😀'.repeat(5000)),
      heading({ settings: { text: 'h'.repeat(5000), level: 1 } }),
    ]);
    await accepted([
      { id: 'i', type: 'image', settings: { src: `/${'a'.repeat(4999)}`, alt: 'a'.repeat(5000) } },
    ]);
    await accepted([
      { id: 'b', type: 'button', settings: { text: 'b'.repeat(5000), href: `/${'a'.repeat(4999)}` } },
    ]);
    await refused({ blocks: [text('x'.repeat(5001))] }, ['/blocks/0/settings/text'], /at most 5000/);
    await refused(
      { blocks: [{ id: 'h', type: 'heading', settings: { text: 'h'.repeat(5001), level: 1 } }] },
      ['/blocks/0/settings/text'],
    );
    await refused({ blocks: [{ id: 'i', type: 'image', settings: { src: '/a', alt: 'a'.repeat(5001) } }] }, [
      '/blocks/0/settings/alt',
    ]);
    await refused(
      { blocks: [{ id: 'i', type: 'image', settings: { src: `/${'a'.repeat(5000)}`, alt: '' } }] },
      ['/blocks/0/settings/src'],
    );
    await refused(
      { blocks: [{ id: 'b', type: 'button', settings: { text: 'b'.repeat(5001), href: '/' } }] },
      ['/blocks/0/settings/text'],
    );
    await refused(
      { blocks: [{ id: 'b', type: 'button', settings: { text: 'b', href: `/${'a'.repeat(5000)}` } }] },
      ['/blocks/0/settings/href'],
    );
  });
});

describe('region rules: limits, each accepted exactly and refused one past it', () => {
  test('depth: 4 levels accepted, 5 refused at the too-deep node', async () => {
    await accepted([nested(4)]);
    await accepted([{ ...nested(4), id: 'top' }, nested(1)]);
    await refused(
      { blocks: [nested(5)] },
      ['/blocks/0/children/0/children/0/children/0/children/0'],
      /nested 5 levels deep; at most 4/,
    );
    // A columns block at depth 4 may exist, but without children.
    await refused({ blocks: [text(), nested(4), nested(6)] }, [
      '/blocks/2/children/0/children/0/children/0/children/0',
    ]);
  });

  test('nodes: 50 accepted, 51 refused (flat or nested)', async () => {
    const flat = (n: number) => Array.from({ length: n }, () => text());
    await accepted(flat(50));
    await refused({ blocks: flat(51) }, ['/blocks'], /51 blocks in all; a region has at most 50/);

    // 5 columns blocks with 9 children each = 50 nodes; one more text makes 51.
    const grouped = () => Array.from({ length: 5 }, () => columns(flat(9), 3));
    await accepted(grouped());
    await refused({ blocks: [...grouped(), text()] }, ['/blocks'], /at most 50/);
  });

  test('children per node: 12 accepted, 13 refused on the children array; the top-level list is limited only by the node count', async () => {
    const kids = (n: number) => Array.from({ length: n }, () => text());
    await accepted([columns(kids(12), 12)]);
    await refused(
      { blocks: [columns(kids(13), 12)] },
      ['/blocks/0/children'],
      /13 children; a block has at most 12/,
    );
    await refused({ blocks: [columns([columns(kids(13))])] }, ['/blocks/0/children/0/children']);
    await accepted(kids(13));
  });

  test('size: the blocks array is at most 64 KiB as JSON; exactly 65 536 bytes accepted, 65 537 refused', async () => {
    const ofSize = (bytes: number): Node[] => {
      const blocks = Array.from({ length: 14 }, (_, i) => ({
        id: `s${i}`,
        type: 'text',
        settings: { text: 'x'.repeat(4900) },
      }));
      const size = Buffer.byteLength(JSON.stringify(blocks));
      const last = blocks.at(-1)!;
      last.settings.text = 'x'.repeat(4900 + bytes - size);
      assert.equal(Buffer.byteLength(JSON.stringify(blocks)), bytes);
      assert.ok(last.settings.text.length <= 5000);
      return blocks;
    };
    await accepted(ofSize(65_536));
    await refused(
      { blocks: ofSize(65_537) },
      ['/blocks'],
      /65537 bytes as JSON; a region is at most 65536 bytes/,
    );
  });
});

describe('region rules: reporting', () => {
  test('every problem of the tree is reported, each with its pointer, in document order', async () => {
    const response = await save({
      blocks: [
        { id: 'a', type: 'heading', settings: { text: '', level: 9 } },
        {
          id: 'c',
          type: 'columns',
          settings: { columns: 2 },
          children: [
            { id: 'b1', type: 'button', settings: { text: 'Go', href: 'java\tscript:alert(1)' } },
            { id: 'a', type: 'image', settings: { src: 'http://x.example/a.png' } },
            { id: 'v', type: 'video', settings: {} },
          ],
        },
        { id: 's', type: 'spacer', settings: { size: 'xl' }, children: [] },
        { id: 'z', type: 'text', settings: { text: 'ok' }, extra: true },
      ],
    });
    assert.deepEqual(pointersOf(response), [
      '/blocks/0/settings/text',
      '/blocks/0/settings/level',
      '/blocks/1/children/0/settings/href',
      '/blocks/1/children/1/id',
      '/blocks/1/children/1/settings/src',
      '/blocks/1/children/1/settings/alt',
      '/blocks/1/children/2/type',
      '/blocks/2/settings/size',
      '/blocks/2/children',
      '/blocks/3/extra',
    ]);
    const problem = response.json<{ detail: string }>();
    assert.match(
      problem.detail,
      /^The region is invalid: blocks\.0\.settings\.text must not be empty \(and 9 more\)\.$/,
    );
  });

  test('at most 100 problems are listed', async () => {
    const blocks = Array.from({ length: 300 }, () => ({ id: '', type: 'nope', settings: 1 }));
    const pointers = pointersOf(await save({ blocks }));
    assert.equal(pointers.length, 100);
    assert.equal(pointers[0], '/blocks/0/id');
  });
});
