/** The account pages' status line: what a save, a code sent or an export did, read out by screen readers. */

/** A status line read out when it changes (`role=status`), kept in the page so the first message is announced. */
export function Status({ message }: { message: string }) {
  return (
    <p class={message ? 'form-status' : 'form-status visually-hidden'} role="status">
      {message}
    </p>
  );
}
