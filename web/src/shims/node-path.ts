/**
 * The browser has no `node:path`. shared/console/api.ts reaches shared/spreadsheet/normalise-row.ts
 * (through the pipeline's records), which uses `posix.normalize` and `posix.basename` on sheet
 * paths; this is those two, as Node writes them, for the bundle (vite.config.ts aliases
 * `node:path` here, tsconfig.json maps it here too).
 */

const normalizeSegments = (path: string, absolute: boolean): string => {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(segment);
  }
  return out.join('/');
};

const normalize = (path: string): string => {
  if (path === '') return '.';
  const absolute = path.startsWith('/');
  const trailing = path.endsWith('/');
  let body = normalizeSegments(path, absolute);
  if (body === '' && !absolute) body = '.';
  if (body !== '' && trailing) body += '/';
  return absolute ? `/${body}` : body;
};

const basename = (path: string, suffix?: string): string => {
  const trimmed = path.replace(/\/+$/, '');
  const base = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  return suffix && base !== suffix && base.endsWith(suffix) ? base.slice(0, -suffix.length) : base;
};

export const posix = { normalize, basename, sep: '/' } as const;
export default { posix, normalize, basename, sep: '/' };
