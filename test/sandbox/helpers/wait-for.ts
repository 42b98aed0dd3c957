/**
 * Polls a condition until it holds or a deadline passes. For the few tests that watch a
 * run end in real time; the others move the sandbox clock instead of waiting.
 */
export const waitFor = async <T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  {
    timeoutMs = 10_000,
    intervalMs = 20,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};
