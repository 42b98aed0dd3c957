/** Row workflow, Review: files the classifier's questions in the review table. */
import { reviewRow } from '../../shared/pipeline/row/review.js';
import { portsFor } from '../runtime.js';

export const handler = async (state: unknown) => reviewRow(await portsFor('row-review'), state);
