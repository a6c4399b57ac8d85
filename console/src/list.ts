// The list pages' one table: a paged API list with its loading and error states, a scrolling table
// region with column headers and a row header, the pager, and switches whose state the API answers.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Page } from './api';
import { html } from './html';
import { ErrorMessage, Loading, Pager, useLoad } from './ui';

export interface Column<Row> {
  title: string;
  cell: (row: Row) => ComponentChildren;
  /** The row's name for screen readers (`<th scope="row">`); the first column by default. */
  rowHeader?: boolean;
  /** Right-aligned figures. */
  num?: boolean;
}

/** Whether the element's content is wider than the element (a narrow screen): the table then scrolls. */
function useOverflow(element: { current: HTMLElement | null }): boolean {
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const target = element.current;
    if (!target) return;
    const check = () => setOverflows(target.scrollWidth > target.clientWidth + 1);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(target);
    if (target.firstElementChild) observer.observe(target.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return overflows;
}

/** A table in its own scrolling region (wide tables scroll there, not the page), labelled for readers. */
export function DataTable<Row>({
  label,
  rows,
  columns,
  testId,
  rowAttributes,
}: {
  label: string;
  rows: Row[];
  columns: Column<Row>[];
  testId?: string;
  rowAttributes?: (row: Row) => Record<string, string | undefined>;
}) {
  const headerAt = Math.max(
    0,
    columns.findIndex((c) => c.rowHeader),
  );
  const region = useRef<HTMLDivElement>(null);
  const overflows = useOverflow(region);
  return html`${
      overflows &&
      html`<p class="scroll-hint muted" data-testid=${testId ? `${testId}-scroll-hint` : undefined}>
        Scroll sideways for more columns →
      </p>`
    }
    <div class="table-scroll" tabindex="0" role="region" aria-label=${label} ref=${region}>
      <table data-testid=${testId}>
        <caption class="visually-hidden">
          ${label}
        </caption>
        <thead>
          <tr>
            ${columns.map((c) => html`<th scope="col" class=${c.num ? 'num' : undefined}>${c.title}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (row) =>
              html`<tr ...${rowAttributes?.(row) ?? {}}>
                ${columns.map((c, i) =>
                  i === headerAt
                    ? html`<th scope="row">${c.cell(row)}</th>`
                    : html`<td class=${c.num ? 'num' : undefined}>${c.cell(row)}</td>`,
                )}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

/** A list the API pages with limit/offset; `reset` goes back to the first page (a filter changed). */
export function usePagedList<Data extends Page>(
  load: (page: { limit: number; offset: number }) => Promise<Data>,
  deps: unknown[],
  limit = 50,
) {
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => load({ limit, offset }), [...deps, offset]);
  return { ...list, offset, limit, setOffset, reset: () => setOffset(0) };
}

export type PagedList<Data extends Page> = ReturnType<typeof usePagedList<Data>>;

/**
 * One paged list as a page shows it: its error, "Loading …" until the first answer, the table (or
 * `empty` when the list has no rows), and the pager when there is more than one page.
 */
export function ListView<Data extends Page, Row>({
  list,
  rowsOf,
  what,
  label,
  columns,
  testId,
  empty,
  error,
  rowAttributes,
  before,
}: {
  list: PagedList<Data>;
  rowsOf: (data: Data) => Row[];
  /** Lower-case name of the items, for "Loading …". */
  what: string;
  /** The table's accessible name and the pager's. */
  label: string;
  columns: Column<Row>[];
  testId?: string;
  empty: string;
  /** A further error to show (a switch that failed). */
  error?: unknown;
  rowAttributes?: (row: Row) => Record<string, string | undefined>;
  /** Shown above the table once the list has loaded (a summary line). */
  before?: (data: Data) => ComponentChildren;
}) {
  const data = list.data;
  const rows = data ? rowsOf(data) : [];
  return html`<${ErrorMessage} error=${list.error ?? error} />
    ${list.loading && !data && html`<${Loading} what=${what} />`} ${data && rows.length > 0 && before?.(data)}
    ${
      data &&
      (rows.length
        ? html`<${DataTable}
            label=${label}
            rows=${rows}
            columns=${columns}
            testId=${testId}
            rowAttributes=${rowAttributes}
          />`
        : html`<p>${empty}</p>`)
    }
    ${
      data &&
      html`<${Pager}
        label=${label}
        offset=${list.offset}
        limit=${list.limit}
        total=${data.total}
        onChange=${list.setOffset}
      />`
    }`;
}

/** An on/off switch: a button with role="switch" and aria-checked, disabled while its request runs. */
export function Switch({
  id,
  label,
  checked,
  onToggle,
}: {
  id: string;
  label: string;
  checked: boolean;
  onToggle: (next: boolean) => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  return html`<button
    type="button"
    role="switch"
    id=${id}
    class=${`switch ${checked ? 'on' : ''}`}
    aria-checked=${checked ? 'true' : 'false'}
    aria-label=${label}
    disabled=${busy}
    onClick=${async () => {
      setBusy(true);
      try {
        await onToggle(!checked);
      } finally {
        setBusy(false);
      }
    }}
  >
    <span aria-hidden="true">${checked ? 'On' : 'Off'}</span>
  </button>`;
}

/**
 * Switch states as the API last answered them, over the list's loaded values: `set` sends the change
 * and keeps the state the API returns under `key`; a refusal is kept in `error`, worded by `explain`.
 */
export function useSwitches(explain: (error: unknown) => unknown = (e) => e) {
  const [answered, setAnswered] = useState<Record<string, boolean>>({});
  const [error, setError] = useState<unknown>();
  return {
    error,
    checked: (key: string, loaded: boolean) => answered[key] ?? loaded,
    set: async (key: string, send: () => Promise<boolean>) => {
      setError(undefined);
      try {
        const now = await send();
        setAnswered((a) => ({ ...a, [key]: now }));
      } catch (e) {
        setError(explain(e));
      }
    },
  };
}
