import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  blockHeight,
  countBlocks,
  diffBlocks,
  findBlock,
  insertBlock,
  moveBlock,
  moveProblem,
  newBlock,
  regionProblems,
  removeBlock,
  uniqueBlockId,
  updateBlock,
  BLOCK_TYPES,
  type Block,
} from '@storefront/blocks';

const heading = (id: string, text = id): Block => ({ id, type: 'heading', settings: { text, level: 2 } });
const text = (id: string, value = id): Block => ({ id, type: 'text', settings: { text: value } });
const columns = (id: string, children: Block[] = []): Block => ({
  id,
  type: 'columns',
  settings: { columns: 2 },
  children,
});

const tree = (): Block[] => [heading('h'), columns('c', [text('a'), text('b')]), text('t')];
const ids = (blocks: readonly Block[]): unknown =>
  blocks.map((b) => (b.type === 'columns' ? { [b.id]: ids(b.children ?? []) } : b.id));

describe('tree edits', () => {
  test('findBlock gives parent, index, depth and the pointer blockAtPointer reads', () => {
    const found = findBlock(tree(), 'b');
    assert.deepEqual(
      { parentId: found?.parentId, index: found?.index, depth: found?.depth, pointer: found?.pointer },
      { parentId: 'c', index: 1, depth: 2, pointer: '/blocks/1/children/1' },
    );
    assert.equal(findBlock(tree(), 'nope'), null);
  });

  test('insert, remove and update return new trees and leave the input alone', () => {
    const before = tree();
    const frozen = JSON.stringify(before);
    assert.deepEqual(ids(insertBlock(before, 'c', text('n'), 1)), ['h', { c: ['a', 'n', 'b'] }, 't']);
    assert.deepEqual(ids(insertBlock(before, null, text('n'))), ['h', { c: ['a', 'b'] }, 't', 'n']);
    assert.deepEqual(ids(removeBlock(before, 'c')), ['h', 't']);
    const updated = updateBlock(before, 'a', (b) => ({ ...b, settings: { text: 'changed' } }) as Block);
    assert.deepEqual(findBlock(updated, 'a')?.block.settings, { text: 'changed' });
    assert.equal(updated[0], before[0], 'untouched branches are shared');
    assert.equal(JSON.stringify(before), frozen);
  });

  test('moveBlock moves within a list, into columns and out of them', () => {
    assert.deepEqual(ids(moveBlock(tree(), 'h', null, 2)), [{ c: ['a', 'b'] }, 't', 'h']);
    assert.deepEqual(ids(moveBlock(tree(), 't', 'c', 0)), ['h', { c: ['t', 'a', 'b'] }]);
    assert.deepEqual(ids(moveBlock(tree(), 'b', null, 0)), ['b', 'h', { c: ['a'] }, 't']);
  });

  test('moveProblem refuses moves into itself, into leaves and past the depth and children limits', () => {
    const nested = [columns('c1', [columns('c2', [columns('c3')])]), columns('x', [text('y')])];
    assert.equal(moveProblem(nested, 'c1', 'c3'), 'cannot move into itself');
    assert.equal(moveProblem(tree(), 't', 'h'), 'can only move into a columns block');
    // c3 is at depth 3: a leaf fits (depth 4), a columns block with a child does not (depth 5).
    assert.equal(moveProblem(nested, 'y', 'c3'), null);
    assert.equal(moveProblem(nested, 'x', 'c3'), 'would be nested more than 4 levels deep');
    assert.deepEqual(ids(moveBlock(nested, 'x', 'c3', 0)), ids(nested), 'a refused move changes nothing');
    const full = [
      columns(
        'full',
        Array.from({ length: 12 }, (_, i) => text(`k${i}`)),
      ),
      text('z'),
    ];
    assert.equal(moveProblem(full, 'z', 'full'), 'the columns block already has 12 blocks');
    assert.equal(moveProblem(full, 'k0', 'full'), null, 'reordering inside a full block is fine');
    assert.equal(blockHeight(nested[0]!), 3);
    assert.equal(countBlocks(nested), 5);
  });

  test('new blocks of each type have fresh ids; all but the image are valid as they come', () => {
    const existing = tree();
    for (const type of BLOCK_TYPES) {
      const id = uniqueBlockId(type, existing, [heading('heading-1')]);
      assert.equal(id, type === 'heading' ? 'heading-2' : `${type}-1`);
      const problems = regionProblems({ blocks: [newBlock(type, id)] });
      if (type === 'image')
        assert.deepEqual(
          problems.map((p) => p.pointer),
          ['/blocks/0/settings/src'],
        );
      else assert.deepEqual(problems, [], type);
    }
  });
});

describe('diffBlocks', () => {
  test('an identical tree has no changes', () => {
    assert.deepEqual(diffBlocks(tree(), tree()), []);
  });

  test('names added, removed and changed blocks with the settings that changed', () => {
    const after = updateBlock(
      insertBlock(removeBlock(tree(), 'a'), null, text('new'), 0),
      'h',
      (b) => ({ ...b, settings: { text: 'Sale', level: 1 } }) as Block,
    );
    const changes = diffBlocks(tree(), after);
    assert.deepEqual(
      changes.map((c) => [c.kind, c.id, c.kind === 'changed' ? c.fields : null]),
      [
        ['added', 'new', null],
        ['changed', 'h', ['text', 'level']],
        ['removed', 'a', null],
      ],
    );
  });

  test('moving one block names that block only, not the siblings it passed', () => {
    const before = [text('1'), text('2'), text('3'), text('4')];
    const after = moveBlock(before, '4', null, 0);
    assert.deepEqual(
      diffBlocks(before, after).map((c) => [c.kind, c.id]),
      [['moved', '4']],
    );
    const change = diffBlocks(before, after)[0];
    assert.ok(change?.kind === 'moved');
    assert.deepEqual(
      [change.from, change.to],
      [
        { parentId: null, index: 3 },
        { parentId: null, index: 0 },
      ],
    );
  });

  test('a block moved into columns and edited gives both entries', () => {
    const after = updateBlock(moveBlock(tree(), 't', 'c', 2), 't', () => text('t', 'edited'));
    assert.deepEqual(
      diffBlocks(tree(), after).map((c) => [c.kind, c.id]),
      [
        ['changed', 't'],
        ['moved', 't'],
      ],
    );
  });

  test('from nothing (never published) every block is added', () => {
    assert.deepEqual(
      diffBlocks([], tree()).map((c) => c.kind + ':' + c.id),
      ['added:h', 'added:c', 'added:a', 'added:b', 'added:t'],
    );
  });
});
