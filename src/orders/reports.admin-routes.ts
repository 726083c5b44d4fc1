import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { requireStaff } from '../http/principals.ts';
import { problemResponses } from '../http/schemas.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { TAX_REPORT_MAX_DAYS, TaxReportQuerySchema, TaxReportSchema } from './tax-report.schemas.ts';
import { taxReport, taxReportCsv, taxReportFilename } from './tax-report.service.ts';

const tags = ['Admin: reports'];

/** The quality (q) an Accept header gives a media type: its exact name, else `type/*`, else `*\/*`. */
function quality(accept: string, type: string): number {
  let best = -1;
  let specificity = -1;
  for (const part of accept.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    const level = name === type ? 2 : name === `${type.split('/')[0]}/*` ? 1 : name === '*/*' ? 0 : -1;
    if (level > specificity) {
      specificity = level;
      best = q === undefined ? 1 : Number(q);
    }
  }
  return specificity < 0 || Number.isNaN(best) ? 0 : best;
}

/** CSV when Accept names text/csv and prefers it to JSON (an equal preference goes to the type named). */
export function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const csv = quality(accept, 'text/csv');
  const json = quality(accept, 'application/json');
  return csv > json || (csv > 0 && csv === json && !/application\/json/i.test(accept));
}

export const reportsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: OrdersDeps }> = async (app, { deps }) => {
  app.get(
    '/reports/tax',
    {
      schema: {
        operationId: 'adminGetTaxReport',
        tags,
        summary:
          'Tax charged and refunded, per country, region, class and rate (what a VAT OSS or US state return needs)',
        description: `Orders paid in [from, to) (paid, or cancelled after they were paid) by paid time, with their tax lines summed per country, region, class, rate and currency: \`orders\` (distinct), \`net\`, \`tax\`, \`gross\`. \`taxRefunded\`: the tax that refunds settled in the window gave back, by settle time, whenever their order was paid (a row of an order paid before the window shows only its refunds). A window covers at most ${TAX_REPORT_MAX_DAYS} days. With \`Accept: text/csv\` the same rows as CSV (a header row; amounts as integers in minor units of the row's \`currency\`), as an attachment \`tax-<from>-<to>.csv\`. See docs/tax.md.`,
        querystring: TaxReportQuerySchema,
        response: {
          200: {
            description: 'The report, as JSON or (Accept: text/csv) as CSV.',
            content: {
              'application/json': { schema: TaxReportSchema },
              'text/csv': {
                schema: Type.String({
                  description:
                    'currency,country,region,class,rateBps,orders,net,tax,gross,taxRefunded; amounts in minor units, an empty field for null.',
                }),
              },
            },
          },
          ...problemResponses,
        },
      },
    },
    async (request, typed) => {
      const report = await taxReport(deps, requireStaff(request).storeId, request.query);
      void typed.header('vary', 'Accept');
      if (!wantsCsv(request.headers.accept)) return report;
      // The body is CSV text, not the JSON the schema's type provider expects.
      const reply = typed as FastifyReply;
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${taxReportFilename(report)}"`)
        .send(taxReportCsv(report));
    },
  );
};
