/**
 * The batch's default operation and country as fields: the options form and the check before
 * sending (RejectionsCheck.tsx) show the same two, bound to the same options.
 */
import { useTranslation } from 'react-i18next';
import type { UploadOptions } from './upload-options.js';

type FieldProps = {
  id: string;
  options: UploadOptions;
  setOptions: (options: UploadOptions) => void;
  testId: string;
};

/** The operation a row with none takes: "as the file says", import or export. */
export const OperationField = ({ id, options, setOptions, testId }: FieldProps) => {
  const { t } = useTranslation();
  return (
    <select
      id={id}
      value={options.operation}
      onChange={(event) =>
        setOptions({ ...options, operation: event.target.value as UploadOptions['operation'] })
      }
      data-testid={testId}
    >
      <option value="">{t('upload.operationFromFile')}</option>
      <option value="import">{t('upload.operationImport')}</option>
      <option value="export">{t('upload.operationExport')}</option>
    </select>
  );
};

/** The country a row with none takes: two letters, written in capitals as typed. */
export const CountryField = ({ id, options, setOptions, testId }: FieldProps) => (
  <input
    id={id}
    value={options.country}
    maxLength={2}
    autoComplete="off"
    className="input-short"
    onChange={(event) => setOptions({ ...options, country: event.target.value.toUpperCase() })}
    data-testid={testId}
  />
);
