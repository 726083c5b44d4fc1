import Type, { type Static } from 'typebox';
import { MoneySchema } from '../http/schemas.ts';

/** Wire schemas of the console's home: what happened since a moment, and what needs attention. */

export const DEFAULT_LOW_STOCK_THRESHOLD = 5;
export const LOW_STOCK_LIMIT = 10;

export const OverviewQuerySchema = Type.Object(
  {
    since: Type.String({
      format: 'date-time',
      description:
        "Start of the period counted (e.g. midnight in the merchant's own time zone, for today's numbers).",
    }),
    lowStockThreshold: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description: `A variant is low on stock at this many available units or fewer (default ${DEFAULT_LOW_STOCK_THRESHOLD}).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type OverviewQuery = Static<typeof OverviewQuerySchema>;

const LowStockVariantSchema = Type.Object(
  {
    productId: Type.String({ format: 'uuid' }),
    productTitle: Type.String(),
    variantId: Type.String({ format: 'uuid' }),
    label: Type.String(),
    sku: Type.Union([Type.String(), Type.Null()]),
    onHand: Type.Integer(),
    reserved: Type.Integer(),
    available: Type.Integer({ description: 'on hand − reserved, never below 0.' }),
  },
  { title: 'LowStockVariant' },
);

export const AdminOverviewSchema = Type.Object(
  {
    since: Type.String({ format: 'date-time' }),
    orders: Type.Object(
      {
        paid: Type.Integer({ description: 'Orders paid since `since`.' }),
        revenue: MoneySchema,
        pending: Type.Integer({ description: 'Orders awaiting payment now.' }),
        expired: Type.Integer({ description: 'Orders that expired unpaid since `since`.' }),
      },
      {
        description:
          '`revenue` is the sum of the totals of the orders paid since `since`, before refunds, in the store currency; orders paid in other markets’ currencies are in `revenueByCurrency`.',
      },
    ),
    revenueByCurrency: Type.Array(MoneySchema, {
      description:
        'Decision `markets`: the same sum per currency the orders were paid in (one entry per currency with paid orders, by code); `revenue` is its store-currency entry.',
    }),
    lowStock: Type.Object({
      threshold: Type.Integer(),
      count: Type.Integer({ description: 'Variants of active products at or below the threshold.' }),
      variants: Type.Array(LowStockVariantSchema, {
        description: `The first ${LOW_STOCK_LIMIT}, least available first.`,
      }),
    }),
    failedWebhookDeliveries: Type.Integer({
      description: 'Deliveries that gave up after their last attempt (retry or replay them).',
    }),
    sendingDomain: Type.Union(
      [
        Type.Object({
          domain: Type.String(),
          status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')]),
        }),
        Type.Null(),
      ],
      { description: 'The store sending domain and its verification status; null without one.' },
    ),
  },
  { title: 'AdminOverview' },
);
export type AdminOverview = Static<typeof AdminOverviewSchema>;
