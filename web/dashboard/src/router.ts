// A small router over the History API for the pages under /dashboard/: the path after the base, its query, and
// links that navigate without reloading (a modified click still opens a new tab as usual).
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((fn) => fn());
window.addEventListener('popstate', notify);

export interface Route {
  /** The path after /dashboard, `/` at least: `/deliveries/3f...`. */
  path: string;
  query: URLSearchParams;
}

const current = (): Route => ({
  path: location.pathname.slice(BASE.length).replace(/\/+$/, '') || '/',
  query: new URLSearchParams(location.search),
});

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const url = to.startsWith('/') ? BASE + to : to;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return route;
}

/** An in-app link's click handler: navigates unless a modifier key asks the browser for a new tab or window. */
export function follow(event: MouseEvent, to: string) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  event.preventDefault();
  navigate(to);
}

/** `/deliveries?status=pending` with empty values left out. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
