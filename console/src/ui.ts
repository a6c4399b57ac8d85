// Small shared pieces: loading and error states, a data-loading hook, page headings that take focus,
// form fields' change handlers.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { html } from './html';

export function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401 && error.message === 'Invalid token')
      return 'Your sign-in has expired. Sign out and sign in again.';
    if (error.status === 401 || error.status === 403)
      return error.message === 'Invalid API key'
        ? 'Your API key is no longer accepted. Sign out and sign in with a valid key.'
        : error.message;
    if (error.status === 429)
      return `${error.message}. Try again in ${error.retryAfter ?? 1} second${error.retryAfter === 1 ? '' : 's'}.`;
    if (error.status === 503) return 'The service is briefly unavailable. Try again in a moment.';
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return html`<p class="error" role="alert">${messageOf(error)}</p>`;
}

export function Loading({ what }: { what: string }) {
  return html`<p class="muted" role="status">Loading ${what}…</p>`;
}

/** Loads `load()` whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const run = useCallback(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** The page's h1, focused when the page opens so keyboard and screen-reader users land on it. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return html`<h1 tabindex="-1" ref=${ref}>${children}</h1>`;
}

export function Pager({
  offset,
  limit,
  total,
  onChange,
  label,
}: {
  offset: number;
  limit: number;
  total: number;
  onChange: (offset: number) => void;
  label: string;
}) {
  if (total <= limit) return null;
  const last = Math.min(total, offset + limit);
  return html`<nav class="pager" aria-label=${`${label} pages`}>
    <button type="button" disabled=${offset === 0} onClick=${() => onChange(Math.max(0, offset - limit))}>
      Previous
    </button>
    <span>${offset + 1}–${last} of ${total}</span>
    <button type="button" disabled=${last >= total} onClick=${() => onChange(offset + limit)}>Next</button>
  </nav>`;
}

/** An input's or select's event handler that hands its new value to `set`. */
export const valueTo =
  <T extends string = string>(set: (value: T) => void) =>
  (e: Event) =>
    set((e.target as HTMLInputElement | HTMLSelectElement).value as T);

export const formatDate = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : '—');
export const formatNumber = (n: number) => n.toLocaleString('en');
