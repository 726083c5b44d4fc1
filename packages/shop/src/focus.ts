/** Moving the focus after a change the shopper made (a step shown, a panel opened, a field refused). */

/** Focuses the element `id` once the next frame has rendered it. */
export function focusSoon(id: string): void {
  window.requestAnimationFrame(() => document.getElementById(id)?.focus());
}
