import type { Language } from '../lang.js';
import { en, type Messages } from './en.js';
import { es } from './es.js';
import { pt } from './pt.js';

export type { Messages };
export const MESSAGES: Record<Language, Messages> = { pt, es, en };
