/** Choosing files (a button in the page's language, not the browser's) and wording their problems. */
import { useTranslation } from 'react-i18next';
import type { FileProblem } from '../files.js';
import { formatBytes, formatNumber, formatOr } from '../format.js';
import { useLanguage } from '../hooks.js';

export const useFileProblemText = () => {
  const { t } = useTranslation();
  const language = useLanguage();
  return (problem: FileProblem): string => {
    switch (problem.code) {
      case 'wrong_file_type':
        return t('fileChecks.wrong_file_type', {
          name: problem.params.name,
          expected: formatOr(language, problem.params.expected),
        });
      case 'file_too_large':
        return t('fileChecks.file_too_large', {
          name: problem.params.name,
          max: formatBytes(language, problem.params.max_bytes),
        });
      case 'too_many_files':
        return t('fileChecks.too_many_files', {
          count: formatNumber(language, problem.params.count),
          max: formatNumber(language, problem.params.max),
        });
      default:
        return t(`fileChecks.${problem.code}`, problem.params);
    }
  };
};

/** Not in React's input props, though every browser takes it: pick a folder, not files. */
const FOLDER_ATTRIBUTES = { webkitdirectory: '' } as Record<string, string>;

/**
 * A file input shown as a button with the page's words; the input itself stays in the page
 * (visually hidden) for keyboards, screen readers and tests. `id` ties it to its field's label.
 */
export const FilePicker = ({
  id,
  accept,
  multiple = false,
  directory = false,
  disabled = false,
  chosen,
  onFiles,
  testId,
}: {
  id: string;
  accept: string;
  multiple?: boolean;
  /** Choose a folder: every file under it, each keeping its path from the folder. */
  directory?: boolean;
  disabled?: boolean;
  /** What is chosen now, shown beside the button (null: nothing yet); left out when the page lists it. */
  chosen?: string | null;
  onFiles: (files: File[]) => void;
  testId: string;
}) => {
  const { t } = useTranslation();
  return (
    <div className="picker">
      <label className={disabled ? 'button picker-button disabled' : 'button picker-button'}>
        <input
          id={id}
          type="file"
          className="visually-hidden"
          accept={accept}
          multiple={multiple || directory}
          disabled={disabled}
          {...(directory ? FOLDER_ATTRIBUTES : {})}
          onChange={(event) => {
            onFiles([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
          data-testid={testId}
        />
        {t(directory ? 'upload.chooseFolder' : multiple ? 'upload.chooseFiles' : 'upload.chooseFile')}
      </label>
      {chosen !== undefined && <span className="picker-chosen muted">{chosen ?? t('upload.noFile')}</span>}
    </div>
  );
};
