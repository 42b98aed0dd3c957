/**
 * Full garbage collections every few thousand rows, for the steps that go through a whole batch
 * or file without holding it (Prepare's passes, Finalize's, FinalizeAnswers', the partial results).
 */

/**
 * Rows handled between two full garbage collections, where the runtime offers them (Lambda's
 * Node.js runtime starts node with --expose-gc; so does the local runtime). Between chunks (pages) nothing
 * of the last one is alive, yet V8 lets a busy heap grow well past what is alive before it
 * collects: a collection every few thousand rows keeps a step's memory near where it is at 2,000
 * rows, for a few percent of its time (docs/options.md, "Limits"). Prepare counts the rows it
 * reads; the steps that read a batch a page at a time count the rows of each page.
 */
const ROWS_BETWEEN_COLLECTIONS = 5_000;

const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => {});

/**
 * Gives a counter to call with the number of rows just handled: it runs a full garbage collection
 * each time 5,000 more rows were handled, and does nothing where the runtime offers none.
 */
export const garbageCollector = () => {
  let rows = 0;
  return (handled: number): void => {
    rows += handled;
    if (rows < ROWS_BETWEEN_COLLECTIONS) return;
    collectGarbage();
    rows = 0;
  };
};
