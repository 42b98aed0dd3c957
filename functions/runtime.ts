/**
 * The Lambda composition root: a handler asks for its function's port set, `portsFor(name,
 * builders)`, the one its description gives (functions/catalogue.ts), naming the builders of
 * exactly those ports (port-builders.ts, service-port.ts); the role is granted from that same
 * description, so a handler gets no port its role cannot use. Also the settings the stack may set
 * (a lower cap, a ceiling on a batch's wait) and the logger every handler shares.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { HandlerName } from '../shared/contract.js';
import type { PipelinePorts, WholeObjects } from '../shared/pipeline/core/ports.js';
import {
  ENV,
  type EnvName,
  FUNCTION_CATALOGUE,
  type PortName,
  type PortNamesOf,
  type PortUses,
} from './catalogue.js';

export const logger = new Logger({
  serviceName: process.env[ENV.serviceName] ?? 'ncm-batch-classifier',
});

/** Long enough to cover the slow poll interval (30 s) many times over; Poll renews it once a third has gone. */
export const LEASE_TTL_MS = 10 * 60 * 1000;

/** A positive integer setting of the environment, or null when it is not set. */
const positiveSetting = (name: EnvName): number | null => {
  const raw = process.env[name];
  if (!raw) return null;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
};

export const capOverride = (): number | null => positiveSetting(ENV.capOverride);

/** The ceiling a deployment puts on a batch's wait for its rows, in seconds; null: none. */
export const maxWaitSeconds = (): number | null => {
  const hours = positiveSetting(ENV.batchTimeoutHours);
  return hours === null ? null : hours * 3600;
};

/**
 * The port a function gets under a name: the pipeline's, but for a bucket its catalogue entry
 * reaches `whole` (by signed requests), which gives whole-object reads and writes only.
 */
type PortOf<N extends HandlerName, P extends PortName> = P extends 'objects'
  ? (typeof FUNCTION_CATALOGUE)[N]['ports'] extends { objects: { whole: true } }
    ? WholeObjects
    : PipelinePorts['objects']
  : PipelinePorts[P];

export type PortsOf<N extends HandlerName> = { [P in PortNamesOf<N>]: PortOf<N, P> };

/**
 * The builders of exactly the ports a function's description gives it, none missing, none more;
 * each builds its port given how this function uses it (its entry in the catalogue), so a builder
 * made for some uses only (the bucket's for whole bodies) is refused where the entry says another.
 */
export type PortBuildersOf<N extends HandlerName> = {
  [P in PortNamesOf<N>]: (
    use: (typeof FUNCTION_CATALOGUE)[N]['ports'][P],
  ) => PortOf<N, P> | Promise<PortOf<N, P>>;
};

/**
 * Takes a function's name and the builders of its port set and gives its ports, each built as the
 * catalogue says the function uses it. The builders are the handler's to name so that its bundle
 * holds only those (port-builders.ts); which ports it gets is still the catalogue's to say.
 */
export const portsFor = async <N extends HandlerName>(
  name: N,
  builders: PortBuildersOf<N>,
): Promise<PortsOf<N>> => {
  const uses: PortUses = FUNCTION_CATALOGUE[name].ports;
  const built = await Promise.all(
    Object.entries(uses).map(async ([port, use]) => {
      const build = (builders as Partial<Record<PortName, (use: unknown) => unknown>>)[port as PortName];
      if (!build) throw new Error(`${name}: no builder for its port ${port}`);
      return [port, await build(use)];
    }),
  );
  return Object.fromEntries(built) as PortsOf<N>;
};
