/**
 * The footer's country selector (decision `markets`): every country a market of the store names, with
 * its currency ("Germany — EUR"), and "Other" for the default market. Choosing one prices the
 * catalog in its market (market.ts) and moves the cart there; what the move did (`market_changed`)
 * is said in a live region. A store with only its default market shows none.
 */
import { useMemo, useState } from 'preact/hooks';
import { describeError } from './api.ts';
import { cartStore } from './cart.ts';
import { marketStore, useMarket, type StoreMarket } from './market.ts';

/** Country names in the shop's language (`<html lang>`), by the browser's own data (no download). */
function countryNamer(): (code: string) => string {
  try {
    const names = new Intl.DisplayNames([document.documentElement.lang || 'en'], { type: 'region' });
    return (code) => names.of(code) ?? code;
  } catch {
    return (code) => code;
  }
}

function countryOptions(markets: readonly StoreMarket[]): { code: string; label: string }[] {
  const name = countryNamer();
  return markets
    .filter((market) => !market.default)
    .flatMap((market) =>
      market.countries.map((code) => ({
        code,
        name: name(code),
        label: `${name(code)} — ${market.currency}`,
      })),
    )
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ code, label }) => ({ code, label }));
}

export function CountrySelect() {
  const { country, markets } = useMarket();
  const [said, setSaid] = useState('');
  const options = useMemo(() => (markets ? countryOptions(markets) : []), [markets]);
  const fallback = markets?.find((market) => market.default);
  if (!fallback || options.length === 0) return null;

  async function choose(value: string) {
    const next = value === '' ? null : value;
    setSaid('');
    marketStore.choose(next);
    try {
      const cart = await cartStore.setCountry(next);
      setSaid(cart?.notices.find((notice) => notice.code === 'market_changed')?.detail ?? '');
    } catch (error) {
      setSaid(describeError(error));
    }
  }

  return (
    <div class="country-select">
      <label for="country-select">Country</label>
      <select
        id="country-select"
        value={country ?? ''}
        onChange={(event) => void choose(event.currentTarget.value)}
      >
        {options.map((option) => (
          <option key={option.code} value={option.code}>
            {option.label}
          </option>
        ))}
        <option value="">{`Other — ${fallback.currency}`}</option>
      </select>
      <p class="country-select-said muted" role="status">
        {said}
      </p>
    </div>
  );
}
