import Type, { type Static } from 'typebox';
import { CurrencyCode, MoneySchema } from '../http/schemas.ts';

/** Wire schemas of the tax report (decision `tax-report`). */

/** The longest window one report covers, in days (bounded work). */
export const TAX_REPORT_MAX_DAYS = 400;

const Bound = (description: string) =>
  Type.String({ minLength: 1, maxLength: 64, description, examples: ['2026-10-01', '2026-10-01T00:00:00Z'] });

export const TaxReportQuerySchema = Type.Object(
  {
    from: Type.Optional(
      Bound(
        'Start of the window, inclusive: an ISO 8601 date (that day’s start in UTC) or a timestamp with a time zone (`Z` or `±hh:mm`). Default: the first day of the month (UTC) that `to` falls in.',
      ),
    ),
    to: Type.Optional(
      Bound(
        'End of the window, exclusive: an ISO 8601 date (the window runs to the end of that day, UTC: the next day’s start) or a timestamp with a time zone. Default: now.',
      ),
    ),
    currency: Type.Optional({
      ...CurrencyCode,
      description: 'Only this currency (default: every currency).',
    }),
  },
  { additionalProperties: false },
);
export type TaxReportQuery = Static<typeof TaxReportQuerySchema>;

export const TaxReportRowSchema = Type.Object(
  {
    country: Type.Union([Type.String(), Type.Null()], {
      description:
        'ISO 3166-1 country of the destination. Null only for an order from before tax lines were kept that had no country.',
    }),
    region: Type.Union([Type.String(), Type.Null()], {
      description: 'The ISO 3166-2 region whose rate applied (`US-CA`); null where the country’s did.',
    }),
    class: Type.String({
      description: 'The tax class (`standard`, `reduced`, …; `shipping` for a tax service’s shipping tax).',
    }),
    rateBps: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'The rate in basis points (1900 = 19 %); null for orders from before tax lines were kept (their rate was not recorded).',
    }),
    currency: CurrencyCode,
    orders: Type.Integer({ description: 'Distinct orders paid in the window with this line.' }),
    net: MoneySchema,
    tax: MoneySchema,
    gross: MoneySchema,
    taxRefunded: MoneySchema,
  },
  { title: 'TaxReportRow' },
);
export type TaxReportRow = Static<typeof TaxReportRowSchema>;

export const TaxReportSchema = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'The window’s start, inclusive.' }),
    to: Type.String({ format: 'date-time', description: 'The window’s end, exclusive.' }),
    items: Type.Array(TaxReportRowSchema, {
      description: 'Sorted by currency, country, region (nulls first), class and rate (nulls first).',
    }),
  },
  { title: 'TaxReport' },
);
export type TaxReport = Static<typeof TaxReportSchema>;
