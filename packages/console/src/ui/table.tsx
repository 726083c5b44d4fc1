/** Lists: the table every list screen shows, its columns, and cursor paging. */
import { useState, type ReactNode } from 'react';

/** A column of a DataTable: its heading, right-aligned for numbers (`num`). */
export interface Column {
  label: ReactNode;
  num?: boolean;
}

/** The heading of a table's last column of buttons: heard by screen readers, not shown. */
export const ACTIONS: Column = { label: <span className="visually-hidden">Actions</span> };

export interface DataTableProps {
  wrap?: string;
  className?: string;
  caption: ReactNode;
  columns: readonly (string | Column | null | false)[];
  /** While a newer page is being fetched (aria-busy). */
  busy?: boolean;
  children: ReactNode;
}

/**
 * A list's table: the scrolling wrapper (`table-wrap` and the screen's `wrap` classes), a caption
 * for screen readers, the column headings (a falsy entry is a column not shown) and the rows.
 */
export function DataTable({ wrap, className, caption, columns, busy, children }: DataTableProps) {
  return (
    <div className={wrap ? `table-wrap ${wrap}` : 'table-wrap'}>
      <table className={className} aria-busy={busy || undefined}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => {
              if (!column) return null;
              const { label, num } = typeof column === 'string' ? { label: column, num: false } : column;
              return (
                <th key={index} scope="col" className={num ? 'num' : undefined}>
                  {label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * Cursor paging: the API gives `nextCursor`; a stack of earlier cursors gives "Previous".
 * `cursor` is what the current page was fetched with.
 */
export function useCursorPager() {
  const [stack, setStack] = useState<(string | undefined)[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  return {
    cursor,
    page: stack.length + 1,
    next: (nextCursor: string | null | undefined) => {
      if (!nextCursor) return;
      setStack((s) => [...s, cursor]);
      setCursor(nextCursor);
    },
    previous: () => {
      setStack((s) => {
        const copy = [...s];
        setCursor(copy.pop());
        return copy;
      });
    },
    reset: () => {
      setStack([]);
      setCursor(undefined);
    },
    hasPrevious: stack.length > 0,
  };
}

export type CursorPager = ReturnType<typeof useCursorPager>;

export function Pager({ pager, nextCursor }: { pager: CursorPager; nextCursor: string | null | undefined }) {
  if (!pager.hasPrevious && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={pager.previous} disabled={!pager.hasPrevious}>
        Previous page
      </button>
      <span>Page {pager.page}</span>
      <button type="button" onClick={() => pager.next(nextCursor)} disabled={!nextCursor}>
        Next page
      </button>
    </nav>
  );
}
