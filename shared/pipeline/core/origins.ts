/**
 * A row's origin: the operation and the country it is classified for (`import` from `CN`).
 *
 * An NCM names the goods, not where they come from: the Mercosur nomenclature classifies a pump
 * the same whether it comes from China or Germany, imported or exported. So rows of one product
 * share one classification whatever their origin (docs/architecture.md, property 11), and only
 * two things are a row's own: its tariffs (`GET /tariffs` for its NCM, country and operation) and,
 * for another operation than the verdict's, its SIM openings (`GET /sim-openings`). Both are free
 * look-ups, made once per origin of a verdict and kept with it (`OriginLookup`). Pure.
 */
import * as z from 'zod';
import { Operation, SimOpenings, TariffLookup } from '../../tcs/schemas.js';

/** The operation and country a row is classified for. */
export const Origin = z.object({ operation: Operation, country: z.string() });
export type Origin = z.infer<typeof Origin>;

/** Gives an origin's name as a key, `import:CN`: the same origin always gives the same key. */
export const originKey = (origin: Origin): string => `${origin.operation}:${origin.country}`;

/** Reads an origin's key (`import:CN`) back into the origin; null for text that is not one. */
export const originOfKey = (key: string): Origin | null => {
  const parsed = Origin.safeParse({
    operation: key.slice(0, key.indexOf(':')),
    country: key.slice(key.indexOf(':') + 1),
  });
  return key.includes(':') && parsed.success ? parsed.data : null;
};

/** Says whether two origins are the same operation and country. */
export const sameOrigin = (a: Origin, b: Origin): boolean =>
  a.operation === b.operation && a.country === b.country;

/** Gives the origin of a valid row's product, or null for a row without one (rejected, a service). */
export const originOf = (
  product: { operation?: Operation | null; country?: string | null } | undefined,
): Origin | null =>
  product?.operation && product.country ? { operation: product.operation, country: product.country } : null;

/**
 * What was looked up for one origin of a verdict's NCM: its tariffs, and, when its operation is not
 * the verdict's, the SIM openings of that operation.
 */
export const OriginLookup = z.object({
  tariffs: TariffLookup,
  sim_openings: SimOpenings.optional(),
});
export type OriginLookup = z.infer<typeof OriginLookup>;

/** A verdict's look-ups for the origins other than its own, by `originKey`. */
export const OriginLookups = z.record(z.string(), OriginLookup);
export type OriginLookups = z.infer<typeof OriginLookups>;
