/** Opening the short-lived links the API makes: at once, never kept. */

/** Saves a file: a hidden `<a href download>` clicked, then removed. */
export const downloadUrl = (url: string, fileName: string): void => {
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.rel = 'noopener';
  anchor.style.display = 'none';
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
};
