/**
 * The console on this machine: a local pipeline whose bucket tells of every object created (so
 * a browser's upload starts its batch as on AWS), and the gateway (console-gateway.ts) serving
 * the staged page and the console functions on loopback.
 */
import { type ConsoleGateway, startConsoleGateway } from './console-gateway.js';
import type { LocalPipeline } from './pipeline.js';

export type LocalConsole = { url: string; pipeline: LocalPipeline; close(): Promise<void> };

/** Starts the gateway over a pipeline started with `bucketNotifications`; close() stops both. */
export const openLocalConsole = async (
  pipeline: LocalPipeline,
  options: { port?: number; log?: (line: string) => void; operator?: string } = {},
): Promise<LocalConsole> => {
  let gateway: ConsoleGateway | null = null;
  try {
    const siteDir = await pipeline.consoleSite();
    if (!siteDir) throw new Error('the synthesized app has no console site (infra/console-stack.ts)');
    gateway = await startConsoleGateway({
      siteDir,
      invoke: (handler, event) => pipeline.invoke(handler, event),
      port: options.port ?? 0,
      log: options.log ?? (() => undefined),
      ...(options.operator ? { operator: options.operator } : {}),
    });
  } catch (error) {
    await pipeline.close();
    throw error;
  }
  const started = gateway;
  return {
    url: started.url,
    pipeline,
    close: async () => {
      await started.close();
      await pipeline.close();
    },
  };
};
