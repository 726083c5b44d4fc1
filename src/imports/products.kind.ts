import type { CsvRow, Header } from './csv-rows.ts';
import type { ImageSource } from './image-source.ts';
import type { ImportKindHandler, Unit } from './import-kind.ts';
import type { RowError } from './imports.tables.ts';
import { applyProduct, checkProducts, type ProductDeps } from './products.import.ts';
import { COLUMNS, readsColumn, type ProductContext } from './shopify-columns.ts';
import { productGroups, readProduct, type ImportedProduct } from './shopify-products.ts';

type ProductUnit = Unit & { product: ImportedProduct };

/**
 * A products import (decision `shopify-product-csv`): Shopify's product CSV, a product per handle.
 * Across the file, a handle's rows must be together and a SKU belongs to one product.
 */
export function productsImport(
  deps: ProductDeps,
  storeId: string,
  context: ProductContext,
  images: ImageSource,
): ImportKindHandler<ProductUnit> {
  return {
    grows: [
      'products',
      'variants',
      'variant_prices',
      'price_history',
      'media',
      'product_images',
      'search_words',
    ],
    columns(header: Header) {
      return {
        ignored: header.unknown((name) => readsColumn(name, context)),
        missing: [COLUMNS.handle, COLUMNS.title, COLUMNS.price].filter((name) => !header.has(name)),
      };
    },

    async *units(rows: AsyncIterable<CsvRow>, header: Header, errors: RowError[]) {
      const handles = new Set<string>();
      const skus = new Map<string, string>();
      for await (const group of productGroups(rows, header, errors)) {
        const first = group.rows[0]!.row;
        if (handles.has(group.handle)) {
          errors.push({
            row: first,
            column: COLUMNS.handle,
            detail: 'was used by rows further up: keep all rows of a product together',
          });
          continue;
        }
        handles.add(group.handle);
        const product = readProduct(group, header, context, errors);
        if (!product) continue;
        let clash = false;
        for (const variant of product.variants) {
          if (!variant.sku) continue;
          const owner = skus.get(variant.sku);
          if (owner !== undefined && owner !== product.handle) {
            errors.push({
              row: variant.row,
              column: COLUMNS.sku,
              detail: `is also the SKU of ${owner} in this file`,
            });
            clash = true;
          }
          skus.set(variant.sku, product.handle);
        }
        if (!clash) yield { firstRow: first, lastRow: group.rows.at(-1)!.row, product };
      }
    },

    check(units, errors) {
      return checkProducts(
        deps.db,
        storeId,
        context.currency,
        units.map((unit) => unit.product),
        errors,
      );
    },

    apply(unit) {
      return applyProduct(deps, storeId, unit.product, images);
    },
  };
}
