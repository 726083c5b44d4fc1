/**
 * The review step's gift cards (decision `shop-gift-cards`): the field adds one card at a time by
 * its code (up to five), and each card the cart holds is listed by its last 4 characters with what
 * it pays, or why it pays nothing now, and its Remove button. A refusal is said at the field (the
 * service's detail: no such card, disabled, expired, empty, another currency, too many tries) and
 * read out, as is what an add or a remove did (a status line; the list shows the same).
 */
import type { Cart } from '@storefront/client';
import { isGiftCardNotice, unusableWords, type HeldGiftCard } from '../../gift-cards.ts';
import { Money } from '../../ui.tsx';
import { CodeForm } from './code-form.tsx';

function HeldCard(props: {
  cart: Cart;
  card: HeldGiftCard;
  sending: boolean;
  onRemove: (last4: string) => void;
}) {
  const { cart, card } = props;
  const notice = cart.notices.find((entry) => isGiftCardNotice(entry) && entry.giftCard === card.last4);
  const pays = card.amount.amount > 0;
  return (
    <li class={pays ? 'held-code' : 'held-code held-code-idle'}>
      <span class="held-code-name">Gift card ending {card.last4}</span>
      <span class="held-code-effect">
        {pays ? (
          <>
            −<Money amount={card.amount.amount} currency={card.amount.currency} />
          </>
        ) : (
          'Pays nothing'
        )}
      </span>
      <button
        type="button"
        class="button-link"
        disabled={props.sending}
        onClick={() => props.onRemove(card.last4)}
      >
        Remove <span class="visually-hidden">gift card ending {card.last4}</span>
      </button>
      {notice ? (
        <p class="held-code-why">{unusableWords(notice)}</p>
      ) : pays ? (
        <p class="held-code-why">
          Balance <Money amount={card.balance.amount} currency={card.balance.currency} />
        </p>
      ) : (
        <p class="held-code-why">Your order needs nothing more from it.</p>
      )}
    </li>
  );
}

export function GiftCardField(props: {
  cart: Cart;
  value: string;
  problem: string | undefined;
  status: string;
  sending: boolean;
  onInput: (value: string) => void;
  onAdd: () => Promise<void>;
  onRemove: (last4: string) => Promise<void>;
}) {
  const { cart } = props;
  return (
    <CodeForm
      {...props}
      id="checkout-gift-card"
      label="Gift card"
      class="discount-form gift-card-form"
      applies="gift card"
      placeholder="XXXX-XXXX-XXXX-XXXX"
      spellcheck={false}
      heldLabel="Your gift cards"
      held={cart.giftCards.map((card) => (
        <HeldCard
          key={card.last4}
          cart={cart}
          card={card}
          sending={props.sending}
          onRemove={(last4) => void props.onRemove(last4)}
        />
      ))}
    />
  );
}
