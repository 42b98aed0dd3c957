/**
 * What the upload page says, before anything is sent, of the sheets the catalogue names: how many
 * and in which column, which chosen files go under the path the catalogue names (found by their
 * file name), which named sheets are not among the chosen files (each with the rows that name
 * it: they would be rejected), and which could be more than one file.
 */
import { useTranslation } from 'react-i18next';
import type { CatalogueSheets, NamedSheet } from '../catalogue-sheets.js';
import { Notice } from '../components/ui.js';
import type { SheetMatch } from '../files.js';
import { formatList, formatNumber } from '../format.js';
import { useLanguage } from '../hooks.js';

const RowsOf = ({ sheet }: { sheet: NamedSheet }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const rows = formatList(
    language,
    sheet.rows.map((row) => formatNumber(language, row)),
  );
  const more = sheet.rowCount - sheet.rows.length;
  return (
    <span className="muted">
      {' '}
      · {t(sheet.rowCount === 1 ? 'upload.named.row' : 'upload.named.rows', { rows })}
      {more > 0 && ` ${t('upload.named.moreRows', { n: formatNumber(language, more) })}`}
    </span>
  );
};

export const NamedSheets = ({
  sheets,
  match,
  reading,
}: {
  sheets: CatalogueSheets | null;
  match: SheetMatch;
  reading: boolean;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  if (reading)
    return (
      <p className="muted small" data-testid="named-sheets" data-state="reading">
        <span className="spinner" aria-hidden="true" /> {t('upload.named.reading')}
      </p>
    );
  if (sheets === null) return null;
  if (!sheets.read)
    return sheets.why === 'xlsx' ? (
      <p className="hint" data-testid="named-sheets" data-state="xlsx">
        {t('upload.named.xlsx')}
      </p>
    ) : null;
  if (sheets.column === null || sheets.sheets.length === 0) return null;
  const bySheet = new Map(sheets.sheets.map((sheet) => [sheet.path, sheet]));
  const found = sheets.sheets.length - match.missing.length - ambiguousPaths(match).length;
  return (
    <div
      className="named-sheets"
      data-testid="named-sheets"
      data-state="read"
      data-missing={match.missing.length}
      data-renamed={match.renamed.length}
      data-ambiguous={match.ambiguous.length}
    >
      <p className="small" data-testid="named-summary">
        {t(sheets.sheets.length === 1 ? 'upload.named.summary_one' : 'upload.named.summary_other', {
          n: formatNumber(language, sheets.sheets.length),
          column: sheets.column,
          found: formatNumber(language, found),
        })}
      </p>
      {match.renamed.length > 0 && (
        <p className="small muted" data-testid="named-renamed">
          {t(match.renamed.length === 1 ? 'upload.named.renamed_one' : 'upload.named.renamed_other', {
            n: formatNumber(language, match.renamed.length),
          })}
        </p>
      )}
      {match.missing.length > 0 && (
        <Notice kind="warn" testId="named-missing">
          <strong>
            {t(match.missing.length === 1 ? 'upload.named.missing_one' : 'upload.named.missing_other', {
              n: formatNumber(language, match.missing.length),
            })}
          </strong>
          <ul>
            {match.missing.map((path) => {
              const sheet = bySheet.get(path);
              return (
                <li key={path} data-testid="missing-sheet" data-path={path}>
                  <span className="mono">{path}</span>
                  {sheet && <RowsOf sheet={sheet} />}
                </li>
              );
            })}
          </ul>
          <p className="notice-note">
            {t(
              match.missing.length === 1 ? 'upload.named.missingHint_one' : 'upload.named.missingHint_other',
            )}
          </p>
        </Notice>
      )}
      {match.ambiguous.length > 0 && (
        <Notice kind="warn" testId="named-ambiguous">
          <ul>
            {match.ambiguous.map((ambiguity) =>
              ambiguity.kind === 'files' ? (
                <li key={ambiguity.path} data-testid="ambiguous-sheet" data-path={ambiguity.path}>
                  {t('upload.named.ambiguousFiles', {
                    path: ambiguity.path,
                    files: formatList(language, ambiguity.candidates),
                  })}
                </li>
              ) : (
                <li key={ambiguity.file} data-testid="ambiguous-sheet" data-path={ambiguity.file}>
                  {t('upload.named.ambiguousPaths', {
                    file: ambiguity.file,
                    paths: formatList(language, ambiguity.paths),
                  })}
                </li>
              ),
            )}
          </ul>
          <p className="notice-note">{t('upload.named.ambiguousHint')}</p>
        </Notice>
      )}
    </div>
  );
};

/** The named paths an ambiguity leaves without a file. */
const ambiguousPaths = (match: SheetMatch): string[] =>
  match.ambiguous.flatMap((ambiguity) => (ambiguity.kind === 'files' ? [ambiguity.path] : ambiguity.paths));
