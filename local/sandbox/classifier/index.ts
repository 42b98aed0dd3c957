/**
 * The sandbox's simulated classifier, behind the `ClassifierPort` the HTTP server codes
 * against. Pure: no clock reads (the server passes `now`), no I/O, no state.
 */
import { classify } from './classify.js';
import type { ClassifierPort } from './contract.js';
import { COUNTRIES } from './countries.js';
import { lookupSimOpenings, lookupTariff } from './lookups.js';
import { TRIGGER_DOCS } from './triggers.js';

export const sandboxClassifier: ClassifierPort = {
  classify,
  lookupTariff,
  lookupSimOpenings,
  countries: COUNTRIES,
  triggers: TRIGGER_DOCS,
};
