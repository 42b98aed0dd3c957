/**
 * What a page shows a person that is not in the page's language: every text and tooltip
 * (`title`, `aria-label`, `placeholder`) of the document, read in Chromium, with the English
 * sentences and the bare machine codes (`operation_missing`, `unreadable_pdf`) found in it. What
 * is data, not words (the file's own cells and the service's texts, marked `translate="no"` as
 * HTML marks what is not to be translated; codes, `code` and `.mono`; the language switch, which
 * names each language in itself; a batch.json key, named as the person writes it), is left out.
 */
import type { Page } from 'playwright-core';
import { BatchOptions } from '../../shared/pipeline/core/batch-options-schema.js';

/** Words of English that Portuguese and Spanish do not write. */
const ENGLISH =
  /\b(the|is|was|with|which|this|that|from|has|have|not|and|of|for|rows?|column|batch(es)?|file|found|cannot|should|there|waiting|answers?)\b/i;
/** A machine's code: lower-case words joined by underscores. */
const CODE = /\b[a-z]{2,}(?:_[a-z0-9]+)+\b/;
/** File names and paths are data: `results.csv`, `sheets/pump.pdf`, `inbox/x/`. */
const FILE_NAME = /\S+\.(csv|xlsx|json|pdf|zip|xml|txt)\b|\S+\/\S*/gi;
/** batch.json's keys (`max_usd`) are what a person writes in that file, as a column's header is: named as written. */
const OPTION_KEYS = new RegExp(`\\b(${Object.keys(BatchOptions.shape).join('|')})\\b`, 'g');

/** Every visible text and tooltip of the page that a person reads as words. */
const wordsOnPage = (page: Page): Promise<string[]> =>
  page.evaluate(`(() => {
    const skip = (el) => el.closest('[translate="no"], code, .mono, [data-testid="language"], script, style');
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || skip(el)) continue;
      const text = node.textContent.trim();
      if (text) found.push(text);
    }
    for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder]')) {
      if (skip(el)) continue;
      for (const name of ['title', 'aria-label', 'placeholder']) {
        const value = el.getAttribute(name);
        if (value) found.push(value.trim());
      }
    }
    return found;
  })()`);

/** Takes a page shown in Portuguese or Spanish and gives what on it is English or a bare code (empty: none). */
export const notInLanguage = async (page: Page): Promise<string[]> =>
  [...new Set(await wordsOnPage(page))].filter((text) => {
    const words = text.replace(FILE_NAME, ' ').replace(OPTION_KEYS, ' ');
    return ENGLISH.test(words) || CODE.test(words);
  });
