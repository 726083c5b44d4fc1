/**
 * A shipping method's delivery estimate in words, once: the console's shipping and order screens
 * and the shop's checkout and order pages all say it the same way.
 */

/** The days a method takes, as the API gives them (either may be absent). */
export interface DeliveryDays {
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
}

const businessDays = (n: number): string => `${n} business day${n === 1 ? '' : 's'}`;

/**
 * "3–5 business days", "2 business days", "Same day", "Up to 5 business days", "3 or more business
 * days"; null when the method gives no days.
 */
export function deliveryEstimate({
  minDeliveryDays: min,
  maxDeliveryDays: max,
}: DeliveryDays): string | null {
  if (min !== null && max !== null && min !== max) return `${min}–${max} business days`;
  const exact = min !== null && max !== null ? max : null;
  if (exact !== null) return exact === 0 ? 'Same day' : businessDays(exact);
  if (max !== null) return max === 0 ? 'Same day' : `Up to ${businessDays(max)}`;
  if (min !== null) return `${businessDays(min)} or more`;
  return null;
}
