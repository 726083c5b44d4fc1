import { updateVariant, variantsOfSkus } from '../catalog/products/products.service.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { AppError } from '../lib/errors.ts';
import { CellReader } from './cells.ts';
import { isBlank, type CsvRow, type Header } from './csv-rows.ts';
import type { ImportKindHandler, Unit } from './import-kind.ts';
import type { RowError } from './imports.tables.ts';

/**
 * Stock counts by SKU (decision `csv-imports`): `SKU` (or `Variant SKU`) and `On hand` (or
 * `Variant Inventory Qty`, a product file's), or Shopify's inventory export's `Available`, which is
 * what is left after orders not yet paid hold theirs: on hand is then that plus what pending
 * orders hold here. A count is set as a recount through the Admin API is (never below what pending
 * orders hold; `inventory.updated` when it changes).
 */
const SKU = ['SKU', 'Variant SKU'];
const COUNT = ['On hand', 'Variant Inventory Qty', 'Available'];

type CountUnit = Unit & { sku: string; count: number; available: boolean };

export function inventoryImport(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
): ImportKindHandler<CountUnit> {
  let skuColumn = SKU[0]!;
  let countColumn = COUNT[0]!;
  return {
    grows: [], // counts change rows in place: the tables keep their size
    columns(header: Header) {
      skuColumn = SKU.find((name) => header.has(name)) ?? SKU[0]!;
      countColumn = COUNT.find((name) => header.has(name)) ?? COUNT[0]!;
      return {
        ignored: header.unknown((name) =>
          [skuColumn, countColumn].some((read) => read.toLowerCase() === name.toLowerCase()),
        ),
        missing: [skuColumn, countColumn].filter((name) => !header.has(name)),
      };
    },

    async *units(rows: AsyncIterable<CsvRow>, header: Header, errors: RowError[]) {
      const seen = new Set<string>();
      for await (const row of rows) {
        if (isBlank(row.cells)) continue;
        const cells = new CellReader(row.row, errors);
        const sku = header.cell(row.cells, skuColumn) ?? '';
        const count = cells.integer(countColumn, header.cell(row.cells, countColumn), 0, 1_000_000_000);
        if (sku === '') cells.fail(skuColumn, 'is required');
        else if (seen.has(sku)) cells.fail(skuColumn, 'is on a row further up too (one count per SKU)');
        else if (count === undefined && (header.cell(row.cells, countColumn) ?? '') === '')
          cells.fail(countColumn, 'is required');
        seen.add(sku);
        if (sku === '' || count === undefined || errors.at(-1)?.row === row.row) continue;
        yield { firstRow: row.row, lastRow: row.row, sku, count, available: countColumn === 'Available' };
      }
    },

    async check(units, errors) {
      const known = await variantsOfSkus(
        deps,
        storeId,
        units.map((unit) => unit.sku),
      );
      for (const unit of units)
        if (!known.has(unit.sku))
          errors.push({
            row: unit.firstRow,
            column: skuColumn,
            detail: 'is the SKU of no variant of the store',
          });
    },

    async apply(unit) {
      const variant = (await variantsOfSkus(deps, storeId, [unit.sku])).get(unit.sku);
      if (!variant)
        return {
          errors: [
            { row: unit.firstRow, column: skuColumn, detail: 'is the SKU of no variant of the store' },
          ],
        };
      const onHand = unit.available ? unit.count + variant.reserved : unit.count;
      if (onHand === variant.onHand) return { outcome: 'unchanged', warnings: [] };
      try {
        await updateVariant(deps, storeId, variant.id, { onHand });
      } catch (error) {
        if (error instanceof AppError && error.status < 500)
          return {
            errors: [
              { row: unit.firstRow, column: countColumn, detail: error.errors?.[0]?.detail ?? error.detail },
            ],
          };
        throw error;
      }
      return { outcome: 'updated', warnings: [] };
    },
  };
}
