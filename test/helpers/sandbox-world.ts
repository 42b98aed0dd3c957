/**
 * The real sandbox over HTTP, one per test file and reset before each test, with a client
 * built on it and the in-memory ports the pipeline's use cases run against.
 *
 * `sandbox` is a live binding: it holds the sandbox started by `startSandboxPerFile` once the
 * file's `beforeAll` has run, so tests and helpers read it as they would a local variable.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type Sandbox, startSandbox } from '../../local/sandbox/sandbox.js';
import type { ClassificationService } from '../../shared/pipeline/core/ports.js';
import { createTcsClient } from '../../shared/tcs/client.js';
import {
  countingKick,
  fixedClock,
  memoryAuditLog,
  memoryBatchStore,
  memoryBatchWaiters,
  memoryCheckStore,
  memoryObjectStore,
  memoryProductCache,
  memoryReviewStore,
  memoryRowQueue,
  memoryRowWorkflows,
  memorySimWatchStore,
  memorySlotLeases,
  recordingPartials,
} from './memory-ports.js';
import { fakeTimer } from './tcs-fixtures.js';

export let sandbox: Sandbox;

/** Starts the sandbox before the file's tests, resets it before each one, closes it after them. */
export const startSandboxPerFile = (seed: string) => {
  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      timeScale: 1,
      seed,
      log: 'silent',
      creationDelayMs: 0,
    });
  });
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.reset());
};

/** A client as the row-submit handler builds it: a 429 comes back at once (no waiting here). */
export const serviceFor = (apiKey = sandbox.keys.classify): ClassificationService =>
  createTcsClient({
    baseUrl: sandbox.baseUrl,
    apiKey,
    timer: fakeTimer(Date.now()).timer,
    retry: { retryRateLimited: false, maxAttempts: 3 },
  });

/**
 * Every port the dispatcher and the Row workflow's tasks take, in memory, on one fixed clock;
 * `wakes` lists the batch (or round) ids woken, in order.
 */
export const makeWorld = (service: ClassificationService = serviceFor()) => {
  const clock = fixedClock();
  const wakes: string[] = [];
  const memoryWaiters = memoryBatchWaiters();
  const ports = {
    clock,
    service,
    objects: memoryObjectStore(),
    batches: memoryBatchStore(),
    reviews: memoryReviewStore(),
    checks: memoryCheckStore(),
    audit: memoryAuditLog(() => clock.now()),
    simWatches: memorySimWatchStore(),
    cache: memoryProductCache(),
    leases: memorySlotLeases(),
    queue: memoryRowQueue(clock),
    workflows: memoryRowWorkflows(),
    kick: countingKick(),
    partials: recordingPartials(),
    waiters: {
      woken: memoryWaiters.woken,
      wake: async (token: string, output: { batch_id: string }) => {
        wakes.push(output.batch_id);
        await memoryWaiters.wake(token, output);
      },
    },
  };
  return { ...ports, ports, wakes };
};
export type World = ReturnType<typeof makeWorld>;
