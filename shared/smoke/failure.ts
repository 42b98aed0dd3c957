/**
 * What stops a smoke before its checks can run (no stack, no batch started, the wait ran out),
 * said as one sentence for the person who ran it. The checks themselves report their own problems.
 */
export class SmokeFailure extends Error {
  override readonly name = 'SmokeFailure';
}
