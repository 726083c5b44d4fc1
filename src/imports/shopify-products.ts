import type { ProductInput } from '../catalog/catalog.schemas.ts';
import { CellReader } from './cells.ts';
import { isBlank, type CsvRow, type Header } from './csv-rows.ts';
import type { RowError } from './imports.tables.ts';
import { COLUMNS, MARKET_PRICE, type ProductContext } from './shopify-columns.ts';

/**
 * Shopify's product CSV, read (decision `shopify-product-csv`): one product is the consecutive rows
 * that share a Handle; its first row holds the product's fields, every row with an option value, a
 * SKU or a price is a variant, and rows with only an image add that image. What a row says is
 * turned into the product it describes (`ImportedProduct`), in the store's terms (integer minor
 * units, the store's tax classes and markets), or into row errors. Pure: the database is asked
 * nothing here.
 */

export interface ImportedImage {
  src: string;
  alt: string | null;
  /** The row that names it first. */
  row: number;
}

export interface ImportedVariant {
  row: number;
  sku: string | null;
  label: string;
  options: Record<string, string>;
  priceAmount: number;
  compareAtAmount: number | null;
  /** Undefined: the file leaves stock as it is (blank, or no such column). */
  onHand: number | undefined;
  weightGrams: number | null | undefined;
  requiresShipping: boolean | undefined;
  /** Undefined: no column says; null: its product's. */
  taxClass: string | null | undefined;
  /** The URL of its image among the product's, or null. */
  image: string | null | undefined;
  prices: { currency: string; amount: number; compareAtAmount: number | null }[] | undefined;
}

/**
 * The product a group of rows describes. A field is undefined where the file has no column for it:
 * an update leaves such a field as it is, a new product takes its default.
 */
export interface ImportedProduct {
  row: number;
  handle: string;
  title: string;
  description: string | undefined;
  status: 'draft' | 'active' | 'archived' | undefined;
  tags: string[] | undefined;
  seo: { title: string | null; description: string | null } | undefined;
  taxClass: string | undefined;
  giftCard: boolean | undefined;
  options: NonNullable<ProductInput['options']>;
  images: ImportedImage[] | undefined;
  variants: ImportedVariant[];
}

/** The most images one product takes, as the API. */
const MAX_IMAGES = 20;
const HANDLE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** Shopify's name and value for a product without options. */
const NO_OPTION_NAME = 'title';

/** The consecutive rows of one handle. Rows without a handle are an error of their own. */
export interface ProductRows {
  handle: string;
  rows: CsvRow[];
}

/** Groups data rows by handle, in file order; blank rows are skipped, handle-less rows reported. */
export async function* productGroups(
  rows: AsyncIterable<CsvRow>,
  header: Header,
  errors: RowError[],
): AsyncGenerator<ProductRows> {
  let current: ProductRows | null = null;
  for await (const row of rows) {
    if (isBlank(row.cells)) continue;
    const handle = header.cell(row.cells, COLUMNS.handle) ?? '';
    if (handle === '') {
      errors.push({ row: row.row, column: COLUMNS.handle, detail: 'is required on every row' });
      continue;
    }
    if (current && current.handle === handle) {
      current.rows.push(row);
      continue;
    }
    if (current) yield current;
    current = { handle, rows: [row] };
  }
  if (current) yield current;
}

/** The product a group describes, or undefined with its errors added to `errors`. */
export function readProduct(
  group: ProductRows,
  header: Header,
  context: ProductContext,
  errors: RowError[],
): ImportedProduct | undefined {
  const before = errors.length;
  const first = group.rows[0]!;
  const cells = new CellReader(first.row, errors);
  const at = (name: string) => header.cell(first.cells, name);

  if (group.handle.length > 100 || !HANDLE.test(group.handle))
    cells.fail(
      COLUMNS.handle,
      'must be lower-case letters, digits and single hyphens, at most 100 characters',
    );
  const title = cells.text(COLUMNS.title, at(COLUMNS.title), 500);
  if (title === undefined && !errors.slice(before).some((e) => e.column === COLUMNS.title))
    cells.fail(COLUMNS.title, 'is required on the first row of a product');
  const description = header.has(COLUMNS.body) ? (header.raw(first.cells, COLUMNS.body) ?? '') : undefined;
  if (description !== undefined && description.length > 100_000)
    cells.fail(COLUMNS.body, 'must be at most 100000 characters');

  const product: ImportedProduct = {
    row: first.row,
    handle: group.handle,
    title: title ?? '',
    description,
    status: readStatus(cells, at(COLUMNS.status), at(COLUMNS.published)),
    tags: header.has(COLUMNS.tags) ? readTags(cells, at(COLUMNS.tags) ?? '') : undefined,
    seo: readSeo(cells, header, first.cells),
    taxClass: undefined,
    giftCard: header.has(COLUMNS.giftCard)
      ? cells.boolean(COLUMNS.giftCard, at(COLUMNS.giftCard), false)
      : undefined,
    options: [],
    images: header.has(COLUMNS.imageSrc) ? [] : undefined,
    variants: [],
  };
  const taxClass = at(COLUMNS.taxClass);
  if (taxClass) product.taxClass = knownClass(cells, COLUMNS.taxClass, taxClass, context);

  const names = [1, 2, 3].map((n) => at(COLUMNS.optionName(n)) ?? '');
  // Shopify writes `Title` / `Default Title` for a product without options; a file written by hand
  // may leave the option columns out altogether.
  const noOptions =
    ['', NO_OPTION_NAME].includes(names[0]!.toLowerCase()) && names[1] === '' && names[2] === '';
  const optionNames = noOptions ? [] : names.filter((name) => name !== '');
  if (names.some((name, i) => name === '' && names.slice(i + 1).some((later) => later !== '')))
    cells.fail(
      COLUMNS.optionName(1),
      'option names must be given in order: Option1, then Option2, then Option3',
    );
  product.options = optionNames.map((name) => ({ name, values: [] }));

  for (const row of group.rows) {
    const reader = new CellReader(row.row, errors);
    addImage(product, reader, header, row.cells);
    if (row !== first && !isVariantRow(header, row.cells)) continue;
    const variant = readVariant(reader, header, row.cells, product, noOptions, context);
    if (variant) product.variants.push(variant);
  }
  for (const variant of product.variants)
    if (variant.image && product.images && !product.images.some((image) => image.src === variant.image))
      product.images.push({ src: variant.image, alt: null, row: variant.row });
  if (product.images && product.images.length > MAX_IMAGES)
    cells.fail(
      COLUMNS.imageSrc,
      `a product takes at most ${MAX_IMAGES} images; this one has ${product.images.length}`,
    );
  product.options.forEach((option, i) => {
    const column = COLUMNS.optionValues(i + 1);
    const listed = readValueList(cells, column, at(column));
    if (!listed) return;
    if (option.values.some((value) => !listed.includes(value)))
      cells.fail(column, 'must list every value the variants use');
    else option.values = listed;
  });
  checkCombinations(product, errors);
  return errors.length > before ? undefined : product;
}

/** A JSON array of distinct option values, or undefined when blank. */
function readValueList(cells: CellReader, column: string, text: string | undefined): string[] | undefined {
  if (text === undefined || text === '') return undefined;
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    list = null;
  }
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    list.length > 100 ||
    list.some((value) => typeof value !== 'string' || value === '' || value.length > 100) ||
    new Set(list).size !== list.length
  )
    return cells.fail(column, 'must be a JSON array of 1 to 100 distinct values, such as ["S","M","L"]');
  return list as string[];
}

function readStatus(
  cells: CellReader,
  status: string | undefined,
  published: string | undefined,
): ImportedProduct['status'] {
  const isPublished =
    published === undefined ? undefined : cells.boolean(COLUMNS.published, published, false);
  if (status !== undefined && status !== '') {
    const value = status.toLowerCase();
    if (value !== 'active' && value !== 'draft' && value !== 'archived')
      return cells.fail(COLUMNS.status, 'must be active, draft or archived');
    // Active but not published to the online store: not on the shop, which is what draft means here.
    return value === 'active' && isPublished === false ? 'draft' : value;
  }
  if (isPublished === undefined) return published === undefined ? undefined : 'draft';
  return isPublished ? 'active' : 'draft';
}

function readTags(cells: CellReader, text: string): string[] | undefined {
  const tags = [
    ...new Set(
      text
        .split(',')
        .map((tag) => tag.trim())
        .filter((tag) => tag !== ''),
    ),
  ];
  if (tags.length > 50) return cells.fail(COLUMNS.tags, 'a product takes at most 50 tags');
  if (tags.some((tag) => tag.length > 64)) return cells.fail(COLUMNS.tags, 'a tag is at most 64 characters');
  return tags;
}

function readSeo(cells: CellReader, header: Header, row: readonly string[]): ImportedProduct['seo'] {
  if (!header.has(COLUMNS.seoTitle) && !header.has(COLUMNS.seoDescription)) return undefined;
  return {
    title: cells.text(COLUMNS.seoTitle, header.cell(row, COLUMNS.seoTitle), 200) ?? null,
    description: cells.text(COLUMNS.seoDescription, header.cell(row, COLUMNS.seoDescription), 500) ?? null,
  };
}

function knownClass(cells: CellReader, column: string, code: string, context: ProductContext) {
  if (context.taxClasses.has(code)) return code;
  return cells.fail(column, `names no tax class of the store (add it with POST /admin/v1/tax-classes first)`);
}

/** A row after a product's first is a variant when it gives an option value, a SKU or a price. */
function isVariantRow(header: Header, row: readonly string[]): boolean {
  return [
    COLUMNS.optionValue(1),
    COLUMNS.optionValue(2),
    COLUMNS.optionValue(3),
    COLUMNS.sku,
    COLUMNS.price,
  ].some((name) => (header.cell(row, name) ?? '') !== '');
}

function addImage(product: ImportedProduct, cells: CellReader, header: Header, row: readonly string[]) {
  const src = header.cell(row, COLUMNS.imageSrc) ?? '';
  if (src === '' || !product.images) return;
  if (!isWebUrl(src)) {
    cells.fail(COLUMNS.imageSrc, 'must be an http or https URL');
    return;
  }
  const alt = cells.text(COLUMNS.imageAlt, header.cell(row, COLUMNS.imageAlt), 500) ?? null;
  const position = cells.integer(COLUMNS.imagePosition, header.cell(row, COLUMNS.imagePosition), 1, 10_000);
  if (product.images.some((image) => image.src === src)) return;
  const image = { src, alt, row: cells.row };
  // Positions order the images; those without one keep their place after those with one before them.
  if (position !== undefined && position - 1 < product.images.length)
    product.images.splice(position - 1, 0, image);
  else product.images.push(image);
}

export function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && text.length <= 2048;
  } catch {
    return false;
  }
}

function readVariant(
  cells: CellReader,
  header: Header,
  row: readonly string[],
  product: ImportedProduct,
  noOptions: boolean,
  context: ProductContext,
): ImportedVariant | undefined {
  const before = cells.errors.length;
  const at = (name: string) => header.cell(row, name);
  const options: Record<string, string> = {};
  let label = cells.text(COLUMNS.label, at(COLUMNS.label), 200);
  if (noOptions) {
    label ??= cells.text(COLUMNS.optionValue(1), at(COLUMNS.optionValue(1)), 200) ?? 'Default Title';
  } else {
    product.options.forEach((option, i) => {
      const column = COLUMNS.optionValue(i + 1);
      const value = cells.text(column, at(column), 100);
      if (value === undefined) {
        if (!cells.errors.slice(before).some((e) => e.column === column))
          cells.fail(column, `is required: the product has the option ${option.name}`);
        return;
      }
      options[option.name] = value;
      if (!option.values.includes(value)) option.values.push(value);
    });
    label ??= Object.values(options).join(' / ');
  }
  const price = cells.money(COLUMNS.price, at(COLUMNS.price), context.digits);
  if (price === undefined && (at(COLUMNS.price) ?? '') === '')
    cells.fail(COLUMNS.price, 'is required for every variant');
  const inventory = cells.integer(COLUMNS.inventory, at(COLUMNS.inventory), -1_000_000_000, 1_000_000_000);
  const grams = header.has(COLUMNS.grams)
    ? (cells.integer(COLUMNS.grams, at(COLUMNS.grams), 0, 10_000_000) ?? null)
    : undefined;
  const requiresShipping = header.has(COLUMNS.requiresShipping)
    ? cells.boolean(COLUMNS.requiresShipping, at(COLUMNS.requiresShipping), product.giftCard !== true)
    : undefined;
  const variant: ImportedVariant = {
    row: cells.row,
    sku: cells.text(COLUMNS.sku, at(COLUMNS.sku), 100) ?? null,
    label,
    options,
    priceAmount: price ?? 0,
    compareAtAmount: header.has(COLUMNS.compareAt)
      ? (cells.money(COLUMNS.compareAt, at(COLUMNS.compareAt), context.digits) ?? null)
      : null,
    // Shopify counts what was oversold below zero; a count here is never below zero.
    onHand: inventory === undefined ? undefined : Math.max(0, inventory),
    weightGrams: grams,
    requiresShipping,
    // Shopify marks gift cards untaxable; a gift card product here is taxed by its product's class.
    taxClass: readTaxClass(
      cells,
      at(COLUMNS.taxCode),
      product.giftCard ? undefined : at(COLUMNS.taxable),
      context,
    ),
    image: header.has(COLUMNS.variantImage) ? readVariantImage(cells, at(COLUMNS.variantImage)) : undefined,
    prices: readPrices(cells, header, row, context),
  };
  return cells.errors.length > before ? undefined : variant;
}

/**
 * A variant's tax class: Variant Tax Code names one of the store's classes; without it, Variant
 * Taxable FALSE means the store's `exempt` class (which must exist, with its 0 rates), TRUE or blank
 * its product's class.
 */
function readTaxClass(
  cells: CellReader,
  code: string | undefined,
  taxable: string | undefined,
  context: ProductContext,
): string | null | undefined {
  if (code !== undefined && code !== '')
    return knownClass(cells, COLUMNS.taxCode, code, context) ?? undefined;
  if (taxable === undefined) return code === undefined ? undefined : null;
  const isTaxable = cells.boolean(COLUMNS.taxable, taxable, true);
  if (isTaxable !== false) return null;
  if (context.taxClasses.has('exempt')) return 'exempt';
  return cells.fail(
    COLUMNS.taxable,
    'is FALSE, but the store has no tax class `exempt`: add it (POST /admin/v1/tax-classes {"code": "exempt"}, with a 0 rate where you sell) or name a class in Variant Tax Code',
  );
}

function readVariantImage(cells: CellReader, src: string | undefined): string | null | undefined {
  if (src === undefined || src === '') return null;
  return isWebUrl(src) ? src : cells.fail(COLUMNS.variantImage, 'must be an http or https URL');
}

function readPrices(
  cells: CellReader,
  header: Header,
  row: readonly string[],
  context: ProductContext,
): ImportedVariant['prices'] {
  const prices = new Map<string, { currency: string; amount: number; compareAtAmount: number | null }>();
  let any = false;
  header.names.forEach((name) => {
    const match = MARKET_PRICE.exec(name);
    const target = match ? context.currencyOf(match[2]!.trim()) : undefined;
    if (!match || !target || target.currency === context.currency) return;
    any = true;
    const amount = cells.money(name, header.cell(row, name), target.digits);
    const entry = prices.get(target.currency) ?? {
      currency: target.currency,
      amount: -1,
      compareAtAmount: null,
    };
    if (match[1]!.toLowerCase() === 'price') {
      if (amount !== undefined) entry.amount = amount;
    } else entry.compareAtAmount = amount ?? null;
    prices.set(target.currency, entry);
  });
  if (!any) return undefined;
  return [...prices.values()]
    .filter((price) => price.amount >= 0)
    .sort((a, b) => a.currency.localeCompare(b.currency));
}

/** Two variants of a product with one combination, or one SKU twice, are refused at the later row. */
function checkCombinations(product: ImportedProduct, errors: RowError[]): void {
  const seen = new Set<string>();
  for (const variant of product.variants) {
    const key = product.options.length === 0 ? variant.label : JSON.stringify(Object.values(variant.options));
    if (seen.has(key))
      errors.push({
        row: variant.row,
        column: product.options.length === 0 ? COLUMNS.optionValue(1) : null,
        detail: 'repeats another variant of the product: each variant needs its own option values',
      });
    seen.add(key);
  }
}
