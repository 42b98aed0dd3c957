/**
 * What each function's bundle holds, read from the synthesized assets as Lambda gets them: its
 * size (a cold start reads, parses and runs all of it), and, from its source map's `sources`, the
 * packages in it: the AWS SDK clients of its own ports and no others (functions/catalogue.ts,
 * console-catalogue.ts), the upload of streams only where its bucket streams, no ExcelJS, and the
 * CSV reader only in the functions that read or rewrite spreadsheets; and of the project's own
 * files, none that only people read (the catalogue's words) nor, in the Row workflow's steps, the
 * wording of rejections, which only Prepare makes and only readers word.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeFunction, type PortName } from '../../functions/catalogue.js';
import { type ConsolePortName, describeConsoleFunction } from '../../functions/console-catalogue.js';
import { type FunctionBundle, functionBundlesOf } from '../../local/bench/bundle-imports.js';
import { synthesizeAssembly } from '../../local/runtime/assembly.js';
import { CONSOLE_HANDLER_NAMES, type ConsoleHandlerName } from '../../shared/console/api.js';
import { HANDLER_NAMES, type HandlerName, TASK_HANDLERS } from '../../shared/contract.js';
import { E2E_ASSEMBLY_DIR } from '../e2e/helpers.js';

/** Sizes in bytes, KB and MB of 1,000. */
const MB = 1_000_000;
/**
 * The Row workflow runs a row's steps one after another, each a cold start of its own at a burst:
 * each under 500 KB. What lets them: the bucket, the kick, the wake and the service's key reached
 * by signed requests (shared/aws/signed-requests.ts) instead of SDK clients that carry every
 * operation of their service.
 */
const ROW_WORKFLOW_BUDGET = 500_000;

type Bundle = FunctionBundle & {
  name: HandlerName | ConsoleHandlerName;
  bytes: number;
  packages: Set<string>;
  sources: string[];
};

/** Every file the bundle was built from, as its source map names them. */
const sourcesOf = (dir: string): string[] =>
  (JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as { sources: string[] }).sources;

/** The package each file of the bundle came from (`@aws-sdk/client-s3`), from its source map. */
const packagesOf = (sources: readonly string[]): Set<string> =>
  new Set(
    sources.flatMap((source) => {
      const found = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
      return found ? [found[1] as string] : [];
    }),
  );

/**
 * The SDK client each port's adapter calls (shared/aws/, functions/*-port*.ts); null for none:
 * the clock, and the ports reached by signed requests (shared/aws/signed-requests.ts).
 */
const CLIENT_OF_PORT: Record<PortName | ConsolePortName, string | null> = {
  clock: null,
  service: null, // the service's key, read at cold start by a signed request
  objects: '@aws-sdk/client-s3',
  links: '@aws-sdk/client-s3',
  queue: '@aws-sdk/client-sqs',
  batches: '@aws-sdk/client-dynamodb',
  reviews: '@aws-sdk/client-dynamodb',
  checks: '@aws-sdk/client-dynamodb',
  simWatches: '@aws-sdk/client-dynamodb',
  writers: '@aws-sdk/client-dynamodb',
  audit: '@aws-sdk/client-dynamodb',
  cache: '@aws-sdk/client-dynamodb',
  leases: '@aws-sdk/client-dynamodb',
  workflows: '@aws-sdk/client-sfn',
  waiters: null,
  events: '@aws-sdk/client-eventbridge',
  notifier: '@aws-sdk/client-sns',
  kick: null,
  partials: null,
};

const isPipelineFunction = (name: string): name is HandlerName =>
  (HANDLER_NAMES as readonly string[]).includes(name);

/** How a function's catalogue entry says it uses its ports. */
const portsOf = (name: HandlerName | ConsoleHandlerName) =>
  isPipelineFunction(name) ? describeFunction(name).ports : describeConsoleFunction(name).ports;

/** The SDK clients a function's ports call, by its catalogue entry: none for a bucket reached `whole`. */
const clientsOfPorts = (name: HandlerName | ConsoleHandlerName): string[] => {
  const ports = portsOf(name);
  const whole = ports.objects !== undefined && 'whole' in ports.objects && ports.objects.whole === true;
  return [
    ...new Set(
      (Object.keys(ports) as (PortName | ConsolePortName)[]).flatMap((port) =>
        port === 'objects' && whole ? [] : (CLIENT_OF_PORT[port] ?? []),
      ),
    ),
  ].sort();
};

/** Prepare, Finalize, the answers round and the console's files: the functions that read or rewrite a spreadsheet. */
const READS_SPREADSHEETS: readonly string[] = [
  'prepare-batch',
  'finalize-batch',
  'finalize-answers',
  'write-partial-results',
  'prepare-answers',
  'sweep-reviews',
  'console-files',
];

let bundles: Bundle[];

beforeAll(async () => {
  // The local runtime's synthesis, into the end-to-end tests' cache: synthesized once for every
  // file that needs the bundles (workflows.test.ts reads the same assembly).
  const assembly = await synthesizeAssembly({
    assemblyDir: E2E_ASSEMBLY_DIR,
    context: { 'aws:cdk:enable-asset-metadata': true },
    log: () => undefined,
  });
  const known: readonly string[] = [...HANDLER_NAMES, ...CONSOLE_HANDLER_NAMES];
  bundles = functionBundlesOf(assembly.dir)
    .filter((bundle): bundle is Bundle => known.includes(bundle.name))
    .map((bundle) => {
      const sources = sourcesOf(bundle.dir);
      return {
        ...bundle,
        bytes: statSync(join(bundle.dir, 'index.mjs')).size,
        packages: packagesOf(sources),
        sources,
      };
    });
}, 300_000);

const kb = (bytes: number) => `${Math.round(bytes / 1000)} KB`;

describe("the functions' bundles", () => {
  it('are one per function, each with its source map', () => {
    expect(bundles.map((bundle) => bundle.name).sort()).toEqual(
      [...HANDLER_NAMES, ...CONSOLE_HANDLER_NAMES].sort(),
    );
    for (const bundle of bundles) expect(bundle.packages.has('zod'), bundle.name).toBe(true);
  });

  it('are each under 1 MB', () => {
    const over = bundles
      .filter((bundle) => bundle.bytes >= MB)
      .map((bundle) => `${bundle.name}: ${kb(bundle.bytes)}`);
    expect(over).toEqual([]);
  });

  it("are under their budget for the Row workflow's steps", () => {
    const steps: readonly string[] = Object.values(TASK_HANDLERS.row);
    const row = bundles.filter((bundle) => steps.includes(bundle.name));
    expect(row).toHaveLength(steps.length);
    const over = row
      .filter((bundle) => bundle.bytes >= ROW_WORKFLOW_BUDGET)
      .map((bundle) => `${bundle.name}: ${kb(bundle.bytes)}`);
    expect(over).toEqual([]);
  });

  it('hold no ExcelJS', () => {
    const holding = bundles.filter((bundle) => bundle.packages.has('exceljs')).map((bundle) => bundle.name);
    expect(holding).toEqual([]);
  });

  it('hold the AWS SDK clients of their own ports, and no others', () => {
    for (const bundle of bundles) {
      const clients = [...bundle.packages].filter((name) => name.startsWith('@aws-sdk/client-')).sort();
      expect(clients, bundle.name).toEqual(clientsOfPorts(bundle.name));
    }
  });

  it('hold the upload of streams only where their bucket streams', () => {
    for (const bundle of bundles) {
      const objects = portsOf(bundle.name).objects;
      const streams = objects !== undefined && 'streams' in objects && objects.streams === true;
      expect(bundle.packages.has('@aws-sdk/lib-storage'), bundle.name).toBe(streams);
    }
  });

  it('hold the CSV reader only where a spreadsheet is read or rewritten', () => {
    const holding = bundles.filter((bundle) => bundle.packages.has('papaparse')).map((bundle) => bundle.name);
    expect(holding.filter((name) => !READS_SPREADSHEETS.includes(name))).toEqual([]);
    // Prepare reads the catalogue: the reader is found where it must be.
    expect(holding).toContain('prepare-batch');
  });

  it("hold none of the catalogue's words: the CDK app and the docs read them, no handler", () => {
    const holding = bundles
      .filter((bundle) => bundle.sources.some((source) => source.endsWith('functions/catalogue-words.ts')))
      .map((bundle) => bundle.name);
    expect(holding).toEqual([]);
  });

  it("word a row's detail in the Row workflow's steps without the rejections' table", () => {
    const steps: readonly string[] = Object.values(TASK_HANDLERS.row);
    const holding = bundles
      .filter((bundle) => steps.includes(bundle.name))
      .filter((bundle) => bundle.sources.some((source) => source.endsWith('shared/wording/rejections.ts')))
      .map((bundle) => bundle.name);
    expect(holding).toEqual([]);
  });
});
