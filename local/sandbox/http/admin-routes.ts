/**
 * The admin API under `/__admin` (never under `/v1`): what tests need to observe and steer
 * the sandbox. No key: the server listens on loopback only. Faults never apply here.
 */
import * as z from 'zod';
import { type Faults, parseFaultSettings } from '../faults.js';
import { type Handler, invalidField, jsonReply, type RequestContext } from './context.js';
import { fail } from './problems.js';

/** What the admin routes act on; implemented by the sandbox, which owns every part. */
export type AdminHooks = {
  stats(): unknown;
  clock(): unknown;
  advanceClock(seconds: number): unknown;
  faults(): unknown;
  applyFaults(settings: Partial<Faults>): unknown;
  reset(): void;
  classifications(orgId: string | null): unknown;
  triggers(): unknown;
};

/** Admin bodies are JSON; an empty body is an empty object. Content-Type is not insisted on. */
const adminJson = (ctx: RequestContext): unknown => {
  const text = ctx.body.bytes.toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return fail('unsupported-media-type', 'The request body is not valid JSON.');
  }
};

const AdvanceClock = z.strictObject({
  advance_seconds: z.number().finite().min(0, 'the sandbox clock only moves forward'),
});

export const adminRoutes = (hooks: AdminHooks) => {
  const index: Handler = () =>
    jsonReply(200, {
      routes: [
        'GET /__admin/stats',
        'GET /__admin/clock',
        'POST /__admin/clock {"advance_seconds": N}',
        'GET /__admin/faults',
        'POST /__admin/faults {"http5xx":0.1,"reset_after":0.05,...}',
        'POST /__admin/reset',
        'GET /__admin/classifications[?organization=org_sandbox]',
        'GET /__admin/triggers',
      ],
    });

  const stats: Handler = () => jsonReply(200, hooks.stats());

  const getClock: Handler = () => jsonReply(200, hooks.clock());

  const postClock: Handler = (ctx) => {
    const parsed = AdvanceClock.safeParse(adminJson(ctx));
    if (!parsed.success) {
      return invalidField('advance_seconds', 'invalid', 'must be a number of seconds ≥ 0');
    }
    return jsonReply(200, hooks.advanceClock(parsed.data.advance_seconds));
  };

  const getFaults: Handler = () => jsonReply(200, hooks.faults());

  const postFaults: Handler = (ctx) => {
    const parsed = parseFaultSettings(adminJson(ctx));
    if (!parsed.ok) {
      return fail('validation-error', parsed.errors.map((e) => `${e.field} ${e.message}`).join('; '), {
        errors: parsed.errors,
      });
    }
    return jsonReply(200, hooks.applyFaults(parsed.faults));
  };

  const reset: Handler = () => {
    hooks.reset();
    return jsonReply(200, { reset: true });
  };

  const classifications: Handler = (ctx) =>
    jsonReply(200, { items: hooks.classifications(ctx.query.get('organization')) });

  const triggers: Handler = () => jsonReply(200, { items: hooks.triggers() });

  return { index, stats, getClock, postClock, getFaults, postFaults, reset, classifications, triggers };
};
