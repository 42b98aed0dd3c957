/**
 * The dispatcher kick (`DispatcherKick` port): an asynchronous invoke of the dispatch
 * function, so a freed slot is refilled within seconds instead of at the next minute. Best
 * effort (lambda-async-invoke.ts): the dispatcher's one-minute schedule is the safety net
 * (docs/architecture.md, property 3), so a failed kick only delays the next row by up to a minute.
 */
import type { DispatcherKick } from '../pipeline/core/ports.js';
import type { KickEvent } from '../pipeline/core/records.js';
import { type AsyncInvokeConfig, asyncInvoker } from './lambda-async-invoke.js';

export type LambdaDispatcherKickConfig = AsyncInvokeConfig;

export const createLambdaDispatcherKick = (config: LambdaDispatcherKickConfig): DispatcherKick => {
  const invoke = asyncInvoker(config, 'dispatcher kick');
  return { kick: (reason) => invoke({ source: 'kick', reason } satisfies KickEvent) };
};
