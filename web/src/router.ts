/**
 * The page's routes, as the part of the URL after `#`: `#/batches`, `#/batches/<id>`,
 * `#/questions`, `#/checks`, `#/upload`. A batch just uploaded rides along as `#/batches?waiting=<name>`;
 * a row's verdict PDF is `#/batches/<id>/rows/<n>/verdict`; the "To check" list can be opened on one batch (`#/checks?batch=<id>`) and on the entry holding
 * one of its rows (`&row=<n>`), as a row of the batch page links to it.
 * Parsing and writing only; no DOM here (useRoute in web/src/hooks.ts listens to the location).
 */

export type Route =
  | { page: 'batches'; waiting: string | null }
  | { page: 'batch'; batchId: string }
  /** A row's verdict PDF through the console: a link a person can share with the team, opened signed in. */
  | { page: 'verdict'; batchId: string; row: number }
  | { page: 'questions' }
  | { page: 'checks'; batchId: string | null; row: number | null }
  | { page: 'upload' }
  | { page: 'not_found'; path: string };

export type PageName = Route['page'];

const decode = (part: string): string | null => {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
};

/** `#/batches/b-1?x=y` (or without `#`) → a route; an empty hash is the batch list. */
export const parseHash = (hash: string): Route => {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  const queryAt = raw.indexOf('?');
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : raw.slice(queryAt + 1));
  const parts = path.split('/').filter((part) => part !== '');
  const [first, second, ...rest] = parts;
  if (first === undefined) return { page: 'batches', waiting: null };
  if (first === 'batches' && second === undefined) {
    const waiting = query.get('waiting');
    return { page: 'batches', waiting: waiting === null || waiting === '' ? null : waiting };
  }
  if (first === 'batches' && second !== undefined && rest.length === 0) {
    const batchId = decode(second);
    if (batchId !== null && batchId !== '') return { page: 'batch', batchId };
  }
  if (
    first === 'batches' &&
    second !== undefined &&
    rest.length === 3 &&
    rest[0] === 'rows' &&
    rest[2] === 'verdict'
  ) {
    const batchId = decode(second);
    const row = Number(rest[1]);
    if (batchId !== null && batchId !== '' && /^\d{1,7}$/.test(rest[1] ?? '') && row >= 1)
      return { page: 'verdict', batchId, row };
  }
  if (first === 'questions' && second === undefined) return { page: 'questions' };
  if (first === 'checks' && second === undefined) {
    const batchId = query.get('batch');
    const row = Number(query.get('row') ?? '');
    return {
      page: 'checks',
      batchId: batchId === null || batchId === '' ? null : batchId,
      row: batchId && Number.isInteger(row) && row >= 1 ? row : null,
    };
  }
  if (first === 'upload' && second === undefined) return { page: 'upload' };
  return { page: 'not_found', path };
};

/** A route → its `#/…` href. */
export const hrefOf = (route: Route): string => {
  switch (route.page) {
    case 'batches':
      return route.waiting === null
        ? '#/batches'
        : `#/batches?${new URLSearchParams({ waiting: route.waiting }).toString()}`;
    case 'batch':
      return `#/batches/${encodeURIComponent(route.batchId)}`;
    case 'verdict':
      return `#/batches/${encodeURIComponent(route.batchId)}/rows/${route.row}/verdict`;
    case 'questions':
      return '#/questions';
    case 'checks': {
      const query = new URLSearchParams();
      if (route.batchId !== null) query.set('batch', route.batchId);
      if (route.batchId !== null && route.row !== null) query.set('row', String(route.row));
      const said = query.toString();
      return said === '' ? '#/checks' : `#/checks?${said}`;
    }
    case 'upload':
      return '#/upload';
    case 'not_found':
      return `#${route.path}`;
  }
};
