/**
 * What every contract suite runs against: one implementation of a port, in memory or a real
 * adapter over a real wire protocol. A suite is written once (`describe…Contract(name,
 * implementation)`) and run against each implementation, so the in-memory ports the use-case
 * tests rely on cannot drift from the adapters the pipeline runs on.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';

export type Implementation<Subject> = {
  /** Starts what the cases share (a server), once before them. */
  start?: () => Promise<void>;
  /** A new, empty subject for one case: its own table, bucket or queue. */
  make: () => Promise<Subject>;
  /** Stops what `start` started. */
  stop?: () => Promise<void>;
};

/**
 * Registers the implementation's life cycle in the enclosing `describe` and returns a
 * getter for the subject of the running case.
 */
export const useImplementation = <Subject>(implementation: Implementation<Subject>): (() => Subject) => {
  let subject: Subject | undefined;
  beforeAll(async () => {
    await implementation.start?.();
  });
  afterAll(async () => {
    await implementation.stop?.();
  });
  beforeEach(async () => {
    subject = await implementation.make();
  });
  return () => {
    if (subject === undefined) throw new Error('no subject: the case runs outside its suite');
    return subject;
  };
};

export const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

/** Runs `work` for every number in from..to, `parallel` at a time: concurrent, as Lambdas are. */
export const forEachNumber = async (
  from: number,
  to: number,
  work: (n: number) => Promise<unknown>,
  parallel = 50,
): Promise<void> => {
  for (let start = from; start <= to; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, to - start + 1) }, (_, i) => start + i);
    await Promise.all(batch.map(work));
  }
};
