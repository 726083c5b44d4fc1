/**
 * The product form's option matrix (screens/products/matrix.ts): the combinations of the options'
 * values, and what an edit of the options does to the rows (new rows, stranded variants, a new
 * option carrying the rows, a removed option folding them, a removal undone, combinations left
 * without a variant).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  combinations,
  comboLabel,
  comboValues,
  optionsBody,
  reconcile,
  type Combo,
  type MatrixRow,
  type OptionDraft,
  type SavedVariant,
} from '../src/screens/products/matrix.ts';

const option = (key: string, name: string, values: string[]): OptionDraft => ({
  key,
  name,
  values: values.map((value) => ({ key: `${key}:${value}`, value })),
});
const size = option('size', 'Size', ['S', 'M']);
const colour = option('colour', 'Colour', ['Red', 'Blue']);

const variant = (id: string, options: Record<string, string>): SavedVariant => ({ id, options });

interface Row extends MatrixRow {
  made?: boolean;
}
let made = 0;
const rowsAfter = (
  before: OptionDraft[],
  after: OptionDraft[],
  rows: Row[],
  extra: { stranded?: SavedVariant[]; archived?: SavedVariant[] } = {},
) =>
  reconcile<Row, SavedVariant>({
    before,
    after,
    rows,
    stranded: extra.stranded ?? [],
    archived: extra.archived ?? [],
    makeRow: (combo: Combo) => ({ key: `new-${++made}`, combo, made: true }),
    revive: (saved, combo) => ({ key: saved.id, combo, saved }),
  });
const labels = (options: OptionDraft[], rows: Row[]) => rows.map((row) => comboLabel(row.combo, options));
const savedRow = (options: OptionDraft[], saved: SavedVariant): Row => {
  const combo: Combo = {};
  for (const o of options) combo[o.key] = o.values.find((v) => v.value === saved.options[o.name])!.key;
  return { key: saved.id, combo, saved };
};

describe('the option matrix', () => {
  test('one combination per value of each option, the first option slowest; the API body', () => {
    const combos = combinations([size, colour]);
    assert.deepEqual(
      combos.map((combo) => comboLabel(combo, [size, colour])),
      ['S / Red', 'S / Blue', 'M / Red', 'M / Blue'],
    );
    assert.deepEqual(comboValues(combos[3]!, [size, colour]), { Size: 'M', Colour: 'Blue' });
    // An option without values takes no part yet.
    assert.equal(combinations([size, option('x', 'Fabric', [])]).length, 2);
    assert.deepEqual(optionsBody([size, option('x', ' Fabric ', [])]), [
      { name: 'Size', values: ['S', 'M'] },
    ]);
  });

  test('a first option carries the variant into its first value; its other values get new rows', () => {
    const only = variant('v1', {});
    const result = rowsAfter([], [size], [{ key: 'v1', combo: {}, saved: only }]);
    assert.deepEqual(labels([size], result.rows), ['S', 'M']);
    assert.equal(result.rows[0]!.saved, only);
    assert.equal(result.rows[1]!.made, true);
    assert.deepEqual(result.newlyStranded, []);
    // A second option: each row into its first value, new rows for the rest.
    const next = rowsAfter([size], [size, colour], result.rows);
    assert.deepEqual(labels([size, colour], next.rows), ['S / Red', 'S / Blue', 'M / Red', 'M / Blue']);
    assert.equal(next.rows[0]!.saved, only);
  });

  test('a removed value strands its saved variants; adding it again brings them back', () => {
    const options = [size, colour];
    const saved = ['S/Red', 'S/Blue', 'M/Red', 'M/Blue'].map((name) => {
      const [s, c] = name.split('/') as [string, string];
      return variant(name, { Size: s, Colour: c });
    });
    const rows = saved.map((v) => savedRow(options, v));
    const withoutM = [{ ...size, values: size.values.slice(0, 1) }, colour];
    const removed = rowsAfter(options, withoutM, rows);
    assert.deepEqual(labels(withoutM, removed.rows), ['S / Red', 'S / Blue']);
    assert.deepEqual(
      removed.newlyStranded.map((v) => v.id),
      ['M/Red', 'M/Blue'],
    );
    const again = [{ ...size, values: [...withoutM[0]!.values, { key: 'size:M2', value: 'M' }] }, colour];
    const undone = rowsAfter(withoutM, again, removed.rows, { stranded: removed.stranded });
    assert.deepEqual(
      undone.rows.map((row) => row.saved?.id),
      ['S/Red', 'S/Blue', 'M/Red', 'M/Blue'],
    );
    assert.deepEqual(undone.stranded, []);
  });

  test('combinations an archived variant has, or that had no row, get none; a renamed value keeps its rows', () => {
    const options = [size, colour];
    const rows = [variant('a', { Size: 'S', Colour: 'Red' }), variant('b', { Size: 'M', Colour: 'Red' })].map(
      (v) => savedRow(options, v),
    );
    // S / Blue and M / Blue had no variant: adding L makes L's rows only.
    const withL = [{ ...size, values: [...size.values, { key: 'size:L', value: 'L' }] }, colour];
    const added = rowsAfter(options, withL, rows, {
      archived: [variant('old', { Size: 'L', Colour: 'Blue' })],
    });
    assert.deepEqual(labels(withL, added.rows), ['S / Red', 'M / Red', 'L / Red']);
    // Renaming M to Medium keeps the row (by key).
    const renamed = [
      {
        ...withL[0]!,
        values: withL[0]!.values.map((v) => (v.value === 'M' ? { ...v, value: 'Medium' } : v)),
      },
      colour,
    ];
    const kept = rowsAfter(withL, renamed, added.rows);
    assert.deepEqual(labels(renamed, kept.rows), ['S / Red', 'Medium / Red', 'L / Red']);
    assert.equal(kept.rows[1]!.saved?.id, 'b');
  });

  test('a removed option folds the rows: the first keeps each combination, the other saved ones are stranded', () => {
    const options = [size, colour];
    const rows = [
      variant('sr', { Size: 'S', Colour: 'Red' }),
      variant('sb', { Size: 'S', Colour: 'Blue' }),
      variant('mr', { Size: 'M', Colour: 'Red' }),
    ].map((v) => savedRow(options, v));
    const folded = rowsAfter(options, [size], rows);
    assert.deepEqual(
      folded.rows.map((row) => row.saved?.id),
      ['sr', 'mr'],
    );
    assert.deepEqual(
      folded.newlyStranded.map((v) => v.id),
      ['sb'],
    );
    // Without any option left, every row stays (each then needs a label).
    const none = rowsAfter([size], [], folded.rows);
    assert.equal(none.rows.length, 2);
    assert.deepEqual(none.rows[0]!.combo, {});
  });
});
