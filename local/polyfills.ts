/**
 * aws-local-stepfunctions 3 calls `Promise.withResolvers`, which arrived in Node 22; these
 * machines run Node 20. Imported (for its effect) before any StateMachine is constructed.
 */
type WithResolvers = <T>() => {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
};

const promiseConstructor = Promise as unknown as { withResolvers?: WithResolvers };
if (typeof promiseConstructor.withResolvers !== 'function') {
  promiseConstructor.withResolvers = <T>() => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((onResolve, onReject) => {
      resolve = onResolve;
      reject = onReject;
    });
    return { promise, resolve, reject };
  };
}
