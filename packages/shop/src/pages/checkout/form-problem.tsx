/** A refusal shown above a checkout step's form, with the lines short of stock when that was the reason. */
import type { Cart, StorefrontError } from '@storefront/client';
import { Link } from '../../router.tsx';

export interface FormProblem {
  message: string;
  stock?: string[];
}

/**
 * The lines an `insufficient_stock` refusal names (its `errors[]` carry `variantId`, `requested`
 * and `available`), by the names the cart shows them with.
 */
export function shortLines(error: StorefrontError, lines: Cart['items']): string[] {
  return error.errors.map((short) => {
    const line = lines.find((candidate) => candidate.variantId === short.variantId);
    const name = line ? `${line.title} (${line.variantLabel})` : 'An item';
    const available = typeof short.available === 'number' ? short.available : 0;
    const requested = typeof short.requested === 'number' ? short.requested : (line?.quantity ?? 0);
    const left = available === 0 ? 'none left' : `only ${available} left`;
    return `${name}: ${left}, you have ${requested} in your cart.`;
  });
}

export function FormProblemNotice({ problem }: { problem: FormProblem | null }) {
  if (!problem) return null;
  return (
    <div class="notice notice-error" role="alert">
      <p>{problem.message}</p>
      {problem.stock ? (
        <ul class="short-lines">
          {problem.stock.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      <p>
        <Link to="/cart">Review your cart</Link>
      </p>
    </div>
  );
}
