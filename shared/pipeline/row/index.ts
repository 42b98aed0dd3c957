/**
 * The Row workflow's tasks, one file each: one row attempt from its POST to its result
 * (docs/architecture.md, the Row workflow).
 *
 *   Submit ─▶ Choice ─ wait ─▶ Wait ─▶ Poll ─▶ Choice ─ store ─▶ Store ─┐
 *                    │                               ─ review ─▶ Review ─┤
 *                    └────────── complete ────────────────────────────── ▶ Complete
 *   Catch on Submit, Poll, Store, Review ─▶ Complete ($.error)
 *   row-execution-ended (FAILED / TIMED_OUT / ABORTED) ─▶ the same Complete logic
 *
 * Each task parses the workflow state (RowState), returns the next RowStep (kept at
 * `$.step`) and is safe to run again with the same input: a Step Functions Retry or a
 * Lambda retry must not create, bill, count or send anything twice.
 *
 * Who owns the row: the execution of (attempt, dispatch) that the row record names. A
 * Complete that finds the row already moved on to a later dispatch changes nothing but
 * what is still its own (see `completeRow`).
 */
export * from './complete.js';
export * from './execution-ended.js';
export * from './poll.js';
export * from './review.js';
export * from './route-classification.js';
export * from './row-decisions.js';
export * from './row-state.js';
export * from './sheet-upload.js';
export * from './store.js';
export * from './submit.js';
export * from './submit-answers.js';
export * from './submit-failure.js';
