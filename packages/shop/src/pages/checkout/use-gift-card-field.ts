/**
 * The review step's gift card field (decision `shop-gift-cards`): what is typed, what was refused
 * at the field, and what the last add or remove did, read out. The cart holds the cards; a refusal
 * the field does not own (the cart changed in another tab, the shop unreachable) goes to `refused`.
 */
import { useState } from 'preact/hooks';
import { cartStore } from '../../cart.ts';
import { focusSoon } from '../../focus.ts';
import { giftCardRefusal, isGiftCardNotice, typedCode, unusableWords } from '../../gift-cards.ts';

export interface GiftCardFieldState {
  value: string;
  problem: string | undefined;
  /** Read out by screen readers: "Gift card ending C4RW applied.", or the refusal. */
  status: string;
  sending: boolean;
}

const FIELD = 'checkout-gift-card';

export function useGiftCardField(refused: (error: unknown) => void) {
  const [state, setState] = useState<GiftCardFieldState>({
    value: '',
    problem: undefined,
    status: '',
    sending: false,
  });
  const set = (patch: Partial<GiftCardFieldState>) => setState((previous) => ({ ...previous, ...patch }));

  /** A refusal at the field: shown below it, tied to it, read out, and the focus kept there. */
  function problemAt(message: string) {
    set({ problem: message, status: message });
    focusSoon(FIELD);
  }

  async function add() {
    const code = typedCode(state.value);
    if (!code) return problemAt('Enter the code printed on your gift card.');
    set({ sending: true, problem: undefined, status: '' });
    try {
      const before = new Set(cartStore.state.cart?.giftCards.map((card) => card.last4));
      const next = await cartStore.addGiftCard(code);
      const card = next.giftCards.find((held) => !before.has(held.last4)) ?? next.giftCards.at(-1);
      const notice = next.notices.find((entry) => isGiftCardNotice(entry) && entry.giftCard === card?.last4);
      set({
        value: '',
        status: card
          ? `Gift card ending ${card.last4} ${notice ? `added. ${unusableWords(notice)}` : 'applied.'}`
          : '',
      });
    } catch (error) {
      const refusal = giftCardRefusal(error);
      if (refusal) problemAt(refusal);
      else refused(error);
    } finally {
      set({ sending: false });
    }
  }

  /** Removes a card; the focus goes back to the field (its button is gone). */
  async function remove(last4: string) {
    set({ sending: true, problem: undefined, status: '' });
    try {
      await cartStore.removeGiftCard(last4);
      set({ status: `Gift card ending ${last4} removed.` });
      focusSoon(FIELD);
    } catch (error) {
      refused(error);
    } finally {
      set({ sending: false });
    }
  }

  return {
    state,
    edit: (value: string) => set({ value, problem: undefined }),
    add,
    remove,
  };
}
