// One page of a searched list (the tasks, the experiences, the actions): asked when the search,
// the page or a filter changes — 250 ms after the last key while a search is typed — and again
// every `everyMs`, so what changes elsewhere (runs, distilling, another tab) shows up.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorText, type Paged } from "../api";

/** What else the page depends on: its filter (`filter`, asked again when it changes) and the
 * search it starts with. */
export interface SearchedPageOptions {
  filter?: string;
  firstQ?: string;
}

/** The search box's text, the page's offset and the page, kept current. */
export function useSearchedPage<T>(
  fetchPage: (q: string, offset: number) => Promise<Paged<T>>,
  everyMs: number,
  onError: (message: string) => void,
  opts: SearchedPageOptions = {},
) {
  const [q, setQ] = useState(opts.firstQ ?? "");
  const [offset, setOffset] = useState(0);
  const [data, setData] = useState<Paged<T> | null>(null);
  const fetcher = useRef(fetchPage);
  fetcher.current = fetchPage;
  const errors = useRef(onError);
  errors.current = onError;

  const load = useCallback(async () => {
    try {
      setData(await fetcher.current(q.trim(), offset));
    } catch (e) {
      errors.current(errorText(e));
    }
  }, [q, offset, opts.filter]);
  useEffect(() => {
    const t = setTimeout(() => void load(), q ? 250 : 0);
    return () => clearTimeout(t);
  }, [load]);
  useEffect(() => {
    const t = setInterval(() => void load(), everyMs);
    return () => clearInterval(t);
  }, [load, everyMs]);

  /** A new search (or filter) starts at the first page. */
  const search = (text: string) => {
    setQ(text);
    setOffset(0);
  };
  return { q, search, offset, setOffset, data, setData, load };
}
