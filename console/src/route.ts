// Hash routes (#/bulk, #/mailboxes/<id>): a static host needs no rewrite rules for them.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  page: string;
  param?: string;
}

export function parseRoute(hash: string): Route {
  const [page = '', param] = hash.replace(/^#\/?/, '').split('/');
  return { page: page || 'validate', param: param ? decodeURIComponent(param) : undefined };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

export const href = (page: string, param?: string) =>
  `#/${page}${param === undefined ? '' : `/${encodeURIComponent(param)}`}`;
