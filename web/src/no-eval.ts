/**
 * Imported first by main.tsx, before any schema is made: the page's Content-Security-Policy has
 * no 'unsafe-eval', and zod probes `new Function` when an object schema is made unless told not to
 * (the probe fails quietly, but the browser reports a violation).
 */
import * as z from 'zod';

z.config({ jitless: true });
