import {
  checkImportedCustomer,
  importCustomer,
  type ImportedCustomer,
} from '../customers/customer-import.service.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { CellReader } from './cells.ts';
import { isBlank, type CsvRow, type Header } from './csv-rows.ts';
import type { ImportKindHandler, Unit } from './import-kind.ts';
import type { RowError } from './imports.tables.ts';

/**
 * Shopify's customer CSV (decision `shopify-customer-csv`), read and written: one customer per row,
 * known by email. Shopify's older export names the address columns without "Default Address" and
 * the consent "Accepts Marketing": both are read.
 */
export const CUSTOMER_COLUMNS = {
  firstName: 'First Name',
  lastName: 'Last Name',
  email: 'Email',
  acceptsMarketing: 'Accepts Email Marketing',
  company: 'Default Address Company',
  address1: 'Default Address Address1',
  address2: 'Default Address Address2',
  city: 'Default Address City',
  province: 'Default Address Province Code',
  country: 'Default Address Country Code',
  zip: 'Default Address Zip',
  addressPhone: 'Default Address Phone',
  phone: 'Phone',
} as const;

/** The older export's names of the same columns. */
const OLDER: Partial<Record<keyof typeof CUSTOMER_COLUMNS, string>> = {
  acceptsMarketing: 'Accepts Marketing',
  company: 'Company',
  address1: 'Address1',
  address2: 'Address2',
  city: 'City',
  province: 'Province Code',
  country: 'Country Code',
  zip: 'Zip',
};

const READ = new Set(
  [...Object.values(CUSTOMER_COLUMNS), ...Object.values(OLDER)].map((name) => name.toLowerCase()),
);

/** The name a field has in this file: the current export's, else the older one's if the file has it. */
function columnOf(header: Header, field: keyof typeof CUSTOMER_COLUMNS): string {
  const older = OLDER[field];
  return !header.has(CUSTOMER_COLUMNS[field]) && older && header.has(older) ? older : CUSTOMER_COLUMNS[field];
}

type CustomerUnit = Unit & { customer: ImportedCustomer };

export function customersImport(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
): ImportKindHandler<CustomerUnit> {
  return {
    grows: ['customers', 'customer_addresses'],
    columns: (header) => ({
      ignored: header.unknown((name) => READ.has(name.toLowerCase())),
      missing: header.has(CUSTOMER_COLUMNS.email) ? [] : [CUSTOMER_COLUMNS.email],
    }),

    async *units(rows: AsyncIterable<CsvRow>, header: Header, errors: RowError[]) {
      const seen = new Set<string>();
      for await (const row of rows) {
        if (isBlank(row.cells)) continue;
        const customer = readCustomer(row, header, errors);
        if (!customer) continue;
        const email = customer.email.toLowerCase();
        if (seen.has(email)) {
          errors.push({ row: row.row, column: CUSTOMER_COLUMNS.email, detail: 'is on a row further up too' });
          continue;
        }
        seen.add(email);
        yield { firstRow: row.row, lastRow: row.row, customer };
      }
    },

    check: async () => {},

    async apply(unit) {
      return { outcome: await importCustomer(deps, storeId, unit.customer), warnings: [] };
    },
  };
}

/** A customer from a row, or undefined with the row's errors added (which never quote a value). */
function readCustomer(row: CsvRow, header: Header, errors: RowError[]): ImportedCustomer | undefined {
  const before = errors.length;
  const cells = new CellReader(row.row, errors);
  const at = (field: keyof typeof CUSTOMER_COLUMNS) =>
    header.cell(row.cells, columnOf(header, field)) || undefined;
  const email = at('email');
  if (email === undefined) {
    cells.fail(CUSTOMER_COLUMNS.email, 'is required');
    return undefined;
  }
  const name = [at('firstName'), at('lastName')].filter(Boolean).join(' ') || undefined;
  const acceptsColumn = columnOf(header, 'acceptsMarketing');
  const accepts = header.has(acceptsColumn)
    ? cells.boolean(acceptsColumn, header.cell(row.cells, acceptsColumn), false)
    : undefined;
  const phone = at('phone');
  const line1 = at('address1');
  const address =
    line1 || at('city')
      ? {
          name: name ?? '',
          company: at('company') ?? null,
          line1: line1 ?? '',
          line2: at('address2') ?? null,
          city: at('city') ?? '',
          region: regionOf(at('country'), at('province')),
          postalCode: at('zip') ?? null,
          country: at('country')?.toUpperCase() ?? '',
          phone: at('addressPhone') ?? null,
        }
      : undefined;
  const { problems, address: checked } = checkImportedCustomer({ email, phone, address });
  for (const problem of problems) cells.fail(columnOfPointer(header, problem.pointer), problem.detail);
  if (errors.length > before) return undefined;
  return { email, name, phone, acceptsMarketing: accepts, address: checked };
}

/** Shopify's province code ("CA") with its country ("US") is the ISO 3166-2 region ("US-CA"). */
function regionOf(country: string | undefined, province: string | undefined): string | null {
  if (!province) return null;
  if (province.includes('-') || !country) return province.toUpperCase();
  return `${country}-${province}`.toUpperCase();
}

function columnOfPointer(header: Header, pointer: string): string | null {
  const field: Record<string, keyof typeof CUSTOMER_COLUMNS> = {
    '/email': 'email',
    '/phone': 'phone',
    '/address/name': 'firstName',
    '/address/company': 'company',
    '/address/line1': 'address1',
    '/address/line2': 'address2',
    '/address/city': 'city',
    '/address/region': 'province',
    '/address/postalCode': 'zip',
    '/address/country': 'country',
    '/address/phone': 'addressPhone',
  };
  const name = field[pointer];
  return name ? columnOf(header, name) : null;
}
