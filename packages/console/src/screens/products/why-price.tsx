/**
 * "Why this price?" (decision `price-function`): for a saved variant, a buyer (a country, so a
 * market; a customer group or a guest) and a moment (now, or a date), what the shop charges and
 * why, from `GET /variants/{id}/price`: the winning price, the price list it came from or the
 * market's own price and how that is made, and every list that applied. Said in plain words; a
 * disclosure in the variant's fields (with options: one under the matrix, with a variant to pick).
 */
import { countryName } from '@storefront/address';
import { useState } from 'react';
import { useCustomerGroups } from '../../data/customer-groups.ts';
import { useMarkets, type Market } from '../../data/markets.ts';
import { usePriceExplanation, type ExplainQuery, type PriceExplanation } from '../../data/price-lists.ts';
import { DataTable, ErrorBanner, SelectField, TextField } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { localInputToIso } from '../integrations-parts.tsx';

/** The countries to ask about: any other country (the default market), then each market's. */
function countryChoices(markets: readonly Market[]): { value: string; label: string }[] {
  const fallback = markets.find((market) => market.default);
  return [
    {
      value: '',
      label: fallback ? `Any other country (${fallback.name}, ${fallback.currency})` : 'Any other country',
    },
    ...markets
      .filter((market) => !market.default)
      .flatMap((market) =>
        market.countries.map((code) => ({
          value: code,
          label: `${countryName(code)} (${market.name}, ${market.currency})`,
        })),
      ),
  ];
}

const MARKET_FROM: Record<PriceExplanation['marketPrice']['from'], string> = {
  store_price: 'the variant’s own price',
  explicit: 'the price set on the variant in this currency',
  converted: 'the store price converted at the market’s rate and rounded by its rule',
};

/** The answer in words: who pays what, and which rule decided. */
function Answer({ answer, buyer }: { answer: PriceExplanation; buyer: string }) {
  const money = (amount: number) => formatMoney(amount, answer.price.currency);
  const market = money(answer.marketPrice.amount);
  const why =
    answer.source === 'market' || !answer.priceList
      ? `No price list applies: it is the market’s price, ${MARKET_FROM[answer.marketPrice.from]}.`
      : answer.source === 'sale'
        ? `The sale “${answer.priceList.name}” wins: it is the lowest sale that applies and is below the regular price, ${money(answer.compareAtAmount ?? answer.marketPrice.amount)}, which the shop shows crossed out.`
        : `The override “${answer.priceList.name}” wins: it is the newest override that applies and no sale below it does. It replaces the market’s price, ${market}.`;
  return (
    <div className="why-price-answer">
      <p>
        <strong>
          {buyer} in the market {answer.market.name} pays {money(answer.price.amount)}
        </strong>{' '}
        (on {formatDateTime(answer.at)}).
      </p>
      <p>{why}</p>
      {answer.source !== 'market' ? (
        <p>
          Without price lists: {market}, {MARKET_FROM[answer.marketPrice.from]}.
        </p>
      ) : null}
      {answer.candidates.length > 0 ? (
        <DataTable
          wrap="orders-table-wrap"
          className="row-headed"
          caption="The price lists that apply"
          columns={['Price list', 'Type', { label: 'Price', num: true }, 'Result']}
        >
          {answer.candidates.map((candidate) => (
            <tr key={candidate.priceListId}>
              <th scope="row">{candidate.name}</th>
              <td>{candidate.kind === 'sale' ? 'Sale' : 'Override'}</td>
              <td className="num">{money(candidate.amount)}</td>
              <td>{candidate.wins ? 'Wins' : 'Not used'}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </div>
  );
}

export function WhyThisPrice({ variants }: { variants: readonly { id: string; name: string }[] }) {
  const markets = useMarkets();
  const groups = useCustomerGroups();
  const [variantId, setVariantId] = useState(variants[0]?.id ?? '');
  const [country, setCountry] = useState('');
  const [groupId, setGroupId] = useState('');
  const [when, setWhen] = useState('');
  const [asked, setAsked] = useState<{ variantId: string; query: ExplainQuery; buyer: string } | null>(null);
  const explanation = usePriceExplanation(asked?.variantId ?? variantId, asked?.query ?? null);
  const groupChoices = [
    { value: '', label: 'A guest (in no group)' },
    ...(groups.data?.items ?? []).map((group) => ({ value: group.id, label: `A member of ${group.name}` })),
  ];

  // Inside the product's form: a button, not a form of its own (Enter in its date asks too).
  function explain() {
    const at = localInputToIso(when);
    const group = groups.data?.items.find((each) => each.id === groupId);
    const buyer = group ? `A member of ${group.name}` : 'A guest';
    setAsked({
      variantId,
      buyer,
      query: {
        ...(country ? { country } : {}),
        ...(groupId ? { customerGroupId: groupId } : {}),
        ...(at ? { at } : {}),
      },
    });
  }

  if (variants.length === 0) return null;
  return (
    <details className="why-price">
      <summary>Why this price?</summary>
      <p className="hint">
        What the shop charges a buyer for this variant, and which rule decides: a sale, an override or the
        market’s own price. Saved prices only: save the product first.
      </p>
      <div role="group" aria-label="Why this price?">
        <div className="orders-form-grid">
          {variants.length > 1 ? (
            <SelectField
              label="Variant"
              value={variantId}
              options={variants.map((variant) => ({ value: variant.id, label: variant.name }))}
              onChange={(event) => setVariantId(event.target.value)}
            />
          ) : null}
          <SelectField
            label="Buyer’s country"
            value={country}
            options={countryChoices(markets.data?.items ?? [])}
            onChange={(event) => setCountry(event.target.value)}
          />
          <SelectField
            label="Buyer"
            value={groupId}
            options={groupChoices}
            onChange={(event) => setGroupId(event.target.value)}
          />
          <TextField
            label="When (optional)"
            type="datetime-local"
            hint="In your time zone; empty: now."
            value={when}
            onChange={(event) => setWhen(event.target.value)}
            onKeyDown={(event) => {
              if (event.key !== 'Enter') return;
              event.preventDefault();
              explain();
            }}
          />
        </div>
        <button type="button" disabled={explanation.isFetching} onClick={explain}>
          {explanation.isFetching ? 'Asking…' : 'Explain the price'}
        </button>
      </div>
      <div aria-live="polite">
        {explanation.isError ? <ErrorBanner error={explanation.error} /> : null}
        {explanation.data && asked ? <Answer answer={explanation.data} buyer={asked.buyer} /> : null}
      </div>
    </details>
  );
}
