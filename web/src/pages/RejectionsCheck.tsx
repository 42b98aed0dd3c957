/**
 * The check before sending: which rows of the chosen catalogue Prepare would reject, and why, in
 * the reader's language (rejections-preview.ts found them as the file was read). A row with no
 * operation or no country is mended by the batch's default, so the defaults can be set right here
 * (the same fields as the options below) and the list follows them as they are typed.
 */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { wordMessage } from '../../../shared/console/web-contract.js';
import { Notice } from '../components/ui.js';
import { formatNumber } from '../format.js';
import { useLanguage } from '../hooks.js';
import { plural } from '../i18n.js';
import { defaultsWanted, type RejectionsPreview, wouldReject } from '../rejections-preview.js';
import { CountryField, OperationField } from './default-fields.js';
import { countryProblem, type UploadOptions } from './upload-options.js';

/** Takes a catalogue's preview and the batch's options, and shows the rows that would be rejected with the defaults that mend some, bound to those options. */
export const RejectionsCheck = ({
  preview,
  options,
  setOptions,
  disabled,
}: {
  preview: RejectionsPreview;
  options: UploadOptions;
  setOptions: (options: UploadOptions) => void;
  disabled: boolean;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const id = useId();
  const country = options.country.trim();
  const left = wouldReject(preview, {
    operation: options.operation !== '',
    country: country !== '' && !countryProblem(country),
  });
  const wanted = defaultsWanted(preview);
  const rows = left.reduce((sum, group) => sum + group.rowCount, 0);
  return (
    <div className="rejections-check" data-testid="rejections-check" data-rows={rows}>
      {rows === 0 ? (
        <Notice kind="success" testId="rejections-none">
          {t('upload.rejections.none', { rows: formatNumber(language, preview.rows) })}
        </Notice>
      ) : (
        <Notice kind="warn" testId="rejections-some">
          <p>{plural(t, 'upload.rejections.title', rows, formatNumber(language, rows))}</p>
          <ul>
            {left.map((group) => (
              <li
                key={group.reason}
                data-testid="rejection-reason"
                data-reason={group.reason}
                data-rows={group.rows.join(',')}
              >
                <strong>
                  {group.rowCount > group.rows.length
                    ? t('upload.rejections.rowsMore', {
                        rows: group.rows.join(', '),
                        n: formatNumber(language, group.rowCount - group.rows.length),
                      })
                    : plural(t, 'upload.rejections.rows', group.rows.length, group.rows.join(', '))}
                </strong>
                {': '}
                {wordMessage(group.message, language)}
              </li>
            ))}
          </ul>
        </Notice>
      )}
      {(wanted.operation || wanted.country) && (
        <fieldset className="defaults-here" disabled={disabled}>
          <legend>{t('upload.rejections.defaults')}</legend>
          <div className="toolbar">
            {wanted.operation && (
              <label className="toolbar-field" htmlFor={`${id}-operation`}>
                <span>{t('upload.operation')}</span>
                <OperationField
                  id={`${id}-operation`}
                  options={options}
                  setOptions={setOptions}
                  testId="rejections-operation"
                />
              </label>
            )}
            {wanted.country && (
              <label className="toolbar-field" htmlFor={`${id}-country`}>
                <span>{t('upload.country')}</span>
                <CountryField
                  id={`${id}-country`}
                  options={options}
                  setOptions={setOptions}
                  testId="rejections-country"
                />
              </label>
            )}
          </div>
        </fieldset>
      )}
    </div>
  );
};
