/** Step 2: the shipping methods offered for the address, with their prices and delivery estimates. */
import { deliveryEstimate } from '@storefront/blocks';
import type { ShippingOption } from '@storefront/client';
import { Money } from '../../ui.tsx';

export function ShippingStep(props: {
  options: readonly ShippingOption[];
  methodId: string | null;
  sending: boolean;
  onChoose: (id: string) => void;
  onSubmit: (event: Event) => Promise<void>;
}) {
  const { methodId, sending } = props;
  return (
    <form onSubmit={(event) => void props.onSubmit(event)}>
      <fieldset class="shipping-options">
        <legend>Shipping method</legend>
        {props.options.map((option) => {
          const estimate = deliveryEstimate(option);
          return (
            <label key={option.id} class="shipping-option">
              <input
                type="radio"
                name="shipping-method"
                value={option.id}
                checked={methodId === option.id}
                onChange={() => props.onChoose(option.id)}
              />
              <span class="shipping-option-name">
                {option.name}
                {estimate ? <span class="muted"> · {estimate}</span> : null}
              </span>
              <span class="shipping-option-price">
                {option.amount.amount === 0 ? (
                  'Free'
                ) : (
                  <Money amount={option.amount.amount} currency={option.amount.currency} />
                )}
              </span>
            </label>
          );
        })}
      </fieldset>
      <button type="submit" class="button-primary" disabled={sending || !methodId}>
        {sending ? 'Saving…' : 'Continue to review'}
      </button>
    </form>
  );
}
