/**
 * The option matrix of the product form (decision `product-options`), without React: the options as typed (each option
 * and value keyed, so a rename keeps its rows), the combinations they make (the cartesian product
 * of the values, one row each), and what an edit of the options does to the rows: a new value's
 * combinations get new rows, a removed value's variants are stranded (archived when the form is
 * saved, never deleted), a new option carries each row into its first value, a removed option
 * folds rows that become the same combination (the first keeps it, the others are stranded).
 */

/** An option as the API has it (`ProductOption`): its name and values. */
export interface ProductOption {
  name: string;
  values: string[];
}

/** What the matrix needs of a saved variant (an AdminVariant): its id and its values by option name. */
export interface SavedVariant {
  id: string;
  options: Record<string, string>;
}

/** An option value as typed; `key` stays the same through a rename. */
export interface ValueDraft {
  key: string;
  value: string;
}

/** An option as typed: its name and values (chips), keyed so that a rename keeps its rows. */
export interface OptionDraft {
  key: string;
  name: string;
  values: ValueDraft[];
}

/** A row's combination: per option key, its value's key. `{}` for a product without options. */
export type Combo = Record<string, string>;

/** At most this many options per product, and values per option (the API's limits). */
export const MAX_OPTIONS = 3;
export const MAX_VALUES = 100;
export const OPTION_NAME_MAX = 50;
export const OPTION_VALUE_MAX = 100;

let keys = 0;
export const newOptionKey = (): string => `opt-${++keys}`;

/** The options that take part in the matrix: those with at least one value. */
export const activeOptions = (options: readonly OptionDraft[]): OptionDraft[] =>
  options.filter((option) => option.values.length > 0);

/** Every combination of the active options' values, the first option's slowest. */
export function combinations(options: readonly OptionDraft[]): Combo[] {
  let combos: Combo[] = [{}];
  for (const option of activeOptions(options)) {
    combos = combos.flatMap((combo) => option.values.map((value) => ({ ...combo, [option.key]: value.key })));
  }
  return combos;
}

/** A combination's identity among the active options (value keys in the options' order). */
export const comboId = (combo: Combo, options: readonly OptionDraft[]): string =>
  activeOptions(options)
    .map((option) => combo[option.key] ?? '?')
    .join('|');

/** A combination's values by option name, as sent (`{"Size": "M", "Colour": "Blue"}`); `{}` without options. */
export function comboValues(combo: Combo, options: readonly OptionDraft[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const option of activeOptions(options)) {
    const value = option.values.find((v) => v.key === combo[option.key]);
    if (value) values[option.name.trim()] = value.value.trim();
  }
  return values;
}

/** A combination as people read it, "M / Blue" (the values in the options' order). */
export function comboLabel(combo: Combo, options: readonly OptionDraft[]): string {
  return activeOptions(options)
    .map((option) => option.values.find((v) => v.key === combo[option.key])?.value.trim() || '…')
    .join(' / ');
}

/** Whether two variants' values are the same (`{"Size": "M"}`), whatever the order of the names. */
export function sameValues(a: Record<string, string>, b: Record<string, string>): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => b[name] === a[name]);
}

/** The options as the API takes them: those with values, names and values trimmed. */
export function optionsBody(options: readonly OptionDraft[]): ProductOption[] {
  return activeOptions(options).map((option) => ({
    name: option.name.trim(),
    values: option.values.map((value) => value.value.trim()),
  }));
}

/** A saved product's options as drafts, each option and value with a new key. */
export function optionDrafts(options: readonly ProductOption[]): OptionDraft[] {
  return options.map((option) => ({
    key: newOptionKey(),
    name: option.name,
    values: option.values.map((value) => ({ key: newOptionKey(), value })),
  }));
}

/** A saved variant's combination among the drafts made from its product's options (by name and value). */
export function comboOf(values: Record<string, string>, options: readonly OptionDraft[]): Combo | null {
  const combo: Combo = {};
  for (const option of activeOptions(options)) {
    const value = option.values.find((v) => v.value === values[option.name]);
    if (!value) return null;
    combo[option.key] = value.key;
  }
  return combo;
}

/** What the matrix needs of a row: its combination and, once saved, its variant. */
export interface MatrixRow<V extends SavedVariant = SavedVariant> {
  key: string;
  combo: Combo;
  saved?: V | undefined;
}

export interface Reconciled<R extends MatrixRow<V>, V extends SavedVariant> {
  /** The rows in the combinations' order (combinations without a row show an Add action). */
  rows: R[];
  /** Saved variants that the options leave without their combination: archived on save. */
  stranded: V[];
  /** Of those, the ones this edit strands (a confirmation names them). */
  newlyStranded: V[];
}

/**
 * The rows after an edit of the options (`before` → `after`):
 *
 * - a row keeps its combination by keys (a renamed option or value keeps its rows);
 * - a row whose value was removed is dropped; a saved one is stranded;
 * - a new option (one that got its first value) carries each row into that value;
 * - rows that become the same combination (an option removed) fold into the first (a saved
 *   variant before a new row); the other saved ones are stranded;
 * - a combination made by the edit (a new value, a new option's other values) gets a new row
 *   (`makeRow`), unless a stranded variant had it (it comes back: removing then adding a value
 *   again undoes the removal) or an archived one has it (restore that one instead); combinations
 *   that had no row before the edit still have none;
 * - without any option left, every row is kept, with no combination.
 */
export function reconcile<R extends MatrixRow<V>, V extends SavedVariant>(input: {
  before: readonly OptionDraft[];
  after: readonly OptionDraft[];
  rows: readonly R[];
  stranded: readonly V[];
  archived: readonly SavedVariant[];
  makeRow: (combo: Combo) => R;
  revive: (variant: V, combo: Combo) => R;
}): Reconciled<R, V> {
  const { before, after, rows, archived, makeRow, revive } = input;
  const stranded = [...input.stranded];
  const newlyStranded: V[] = [];
  const strand = (row: R) => {
    if (!row.saved) return;
    stranded.push(row.saved);
    newlyStranded.push(row.saved);
  };
  const active = activeOptions(after);
  if (active.length === 0) {
    return { rows: rows.map((row) => ({ ...row, combo: {} })), stranded, newlyStranded };
  }

  const placed = new Map<string, R>();
  for (const row of rows) {
    const combo: Combo = {};
    let fits = true;
    for (const option of active) {
      const valueKey = row.combo[option.key];
      if (valueKey === undefined) combo[option.key] = option.values[0]!.key;
      else if (option.values.some((value) => value.key === valueKey)) combo[option.key] = valueKey;
      else fits = false;
    }
    if (!fits) {
      strand(row);
      continue;
    }
    const id = comboId(combo, after);
    const there = placed.get(id);
    if (there === undefined) placed.set(id, { ...row, combo });
    else if (!there.saved && row.saved) placed.set(id, { ...row, combo });
    else strand(row);
  }

  // The combinations that had no row before the edit keep none.
  const previous = activeOptions(before);
  const hadRows = new Set(rows.map((row) => comboId(row.combo, before)));
  const stillAbsent = (combo: Combo): boolean =>
    previous.length > 0 &&
    previous.every(
      (option) =>
        active.some((a) => a.key === option.key) &&
        option.values.some((value) => value.key === combo[option.key]),
    ) &&
    !hadRows.has(comboId(combo, before));

  const next: R[] = [];
  for (const combo of combinations(after)) {
    const row = placed.get(comboId(combo, after));
    if (row) {
      next.push(row);
      continue;
    }
    const values = comboValues(combo, after);
    const back = stranded.findIndex((variant) => sameValues(variant.options, values));
    if (back >= 0) {
      const [variant] = stranded.splice(back, 1);
      const again = newlyStranded.indexOf(variant!);
      if (again >= 0) newlyStranded.splice(again, 1);
      next.push(revive(variant!, combo));
      continue;
    }
    if (stillAbsent(combo) || archived.some((variant) => sameValues(variant.options, values))) continue;
    next.push(makeRow(combo));
  }
  return { rows: next, stranded, newlyStranded };
}

/** Rows in the combinations' order (after an Add, or a restored variant placed). */
export function inMatrixOrder<R extends MatrixRow>(rows: readonly R[], options: readonly OptionDraft[]): R[] {
  if (activeOptions(options).length === 0) return [...rows];
  const order = new Map(combinations(options).map((combo, index) => [comboId(combo, options), index]));
  return [...rows].sort(
    (a, b) =>
      (order.get(comboId(a.combo, options)) ?? Infinity) - (order.get(comboId(b.combo, options)) ?? Infinity),
  );
}
