/**
 * The operations console's functions, described once as functions/catalogue.ts describes the
 * pipeline's: each one's handler, size, the ports its handler gets and how far each reaches.
 * The console stack grants each role from here (infra/), functions/console-runtime.ts builds
 * the ports from here, and the local runtime runs the same functions from the template.
 *
 * Split by reach, not by page: reading records, making links for the browser (which can then
 * do what the role can: put under inbox/ and answers/, get under outbox/), and dropping an
 * answers file. No function here gets the service's key or writes a table.
 *
 * No aws-cdk-lib import here, nor any SDK client (see functions/catalogue.ts).
 */
import type { ConsoleHandlerName } from '../shared/console/api.js';
import { ENV, type EnvName, type Prefix, type TableUse } from './catalogue.js';

export type ConsolePortUses = {
  clock?: 'system';
  /** Reads batch and row records; `listByStart`: lists batches on the table's by-start index. */
  batches?: { operations: TableUse; listByStart?: true };
  reviews?: TableUse;
  /** The review table's verdicts to check (shared/aws/dynamo-check-store.ts): the "To check" list. */
  checks?: TableUse;
  /** The batch table's audit events (shared/aws/dynamo-audit-log.ts): a batch's audit. */
  audit?: TableUse;
  /** The review table's records of who wrote a dropped file (shared/aws/dynamo-writer-records.ts). */
  writers?: TableUse;
  /** Reads the slot leases held now (slots in use of the cap). */
  leases?: TableUse;
  objects?: { read?: readonly Prefix[]; write?: readonly Prefix[] };
  /** Presigned requests, signed with the role: its object grants are what the browser may do. */
  links?: 'presign';
};
export type ConsolePortName = keyof ConsolePortUses;

const CONSOLE_PORT_ENVIRONMENT = {
  clock: [],
  batches: [ENV.batchTable],
  reviews: [ENV.reviewTable],
  checks: [ENV.reviewTable],
  audit: [ENV.batchTable],
  writers: [ENV.reviewTable],
  leases: [ENV.leaseTable, ENV.leaseScope],
  objects: [ENV.bucketName],
  links: [ENV.bucketName],
} as const satisfies Record<ConsolePortName, readonly EnvName[]>;

export type ConsoleFunctionDescription = {
  entry: string;
  timeoutSeconds: number;
  memoryMb: number;
  description: string;
  ports: ConsolePortUses;
  settings?: readonly 'capOverride'[];
  /** Grants kept although no test run uses them, each with why (functions/catalogue.ts, `kept`). */
  kept?: Readonly<Record<string, string>>;
};

export const CONSOLE_FUNCTIONS = {
  'console-read': {
    entry: 'functions/console-read/handler.ts',
    // API Gateway gives up on an integration after 29 s.
    timeoutSeconds: 29,
    // The questions inbox still reads the batches holding questions whole; a batch page reads counters.
    memoryMb: 1024,
    description:
      'Console: batches, a batch with its progress, its rows (one opened whole) and its audit, the questions inbox, the "To check" list',
    // summary.json of a finished batch (saved money), which files the outbox holds; the NCM table
    // in force (reference/; listing it finds the newest), which the rows' codes are checked against.
    ports: {
      clock: 'system',
      batches: { operations: ['GetItem', 'Query'], listByStart: true },
      // The questions inbox: every pending item, across batches; one row opened, or an answered
      // event of the audit: its item's questions and answers.
      reviews: ['Scan', 'GetItem'],
      // The "To check" list: every open check item, across batches; one row opened, or a decided
      // event of the audit: its item's decision and note.
      checks: ['Scan', 'GetItem'],
      // A batch's audit, a page at a time.
      audit: ['Query'],
      leases: ['GetItem'],
      // A batch's audit names its sender on its submissions once S3's record of the drop proves
      // who that is, when it came after Finalize.
      writers: ['GetItem'],
      objects: { read: ['outbox/*', 'reference/*'] },
    },
    settings: ['capOverride'],
    kept: {
      'Writers dynamodb:GetItem':
        "Read only when S3's record of a catalogue's drop came after its batch finished (CloudTrail's delay): the audit then names the sender proven since.",
    },
  },
  'console-files': {
    entry: 'functions/console-files/handler.ts',
    timeoutSeconds: 29,
    memoryMb: 512,
    description:
      'Console: upload forms for inbox/ and answers/, links to outbox files and verdict PDFs (results.xlsx with its PDFs as one ZIP), a plan run',
    // Writes batch.json beside the catalogue itself; signs the browser's POSTs (inbox/, answers/)
    // and GETs (outbox/); reads a row to find its verdict PDF. Runs a plan: lists the planned
    // batch's folder and copies its catalogue and sheets within inbox/ (CopyObject reads the
    // source, s3:GetObject on inbox/, and writes the copy, s3:PutObject).
    ports: {
      clock: 'system',
      batches: { operations: ['GetItem'] },
      // Writes results.xlsx with its verdict PDFs as one ZIP into the outbox, when a person asks.
      objects: { read: ['outbox/*', 'inbox/*'], write: ['inbox/*', 'answers/*', 'outbox/*'] },
      links: 'presign',
      // The signed-in person recorded as who the catalogue's upload form is for.
      writers: ['PutItem'],
    },
    kept: {
      'ObjectsWriteAnswers s3:PutObject':
        'The form for a new sheet sent with answers (answers/<batch-id>/sheets/).',
    },
  },
  'console-answers': {
    entry: 'functions/console-answers/handler.ts',
    timeoutSeconds: 29,
    memoryMb: 512,
    description:
      'Console: answers to pending rows, decisions on verdicts to check and rows sent again, dropped as files into answers/<batch-id>/',
    // Checks each answered row is still pending and a new sheet is there (answers/<batch>/sheets/),
    // or each decided row still waits for its check and the NCM decided is in the NCM table in
    // force (reference/; listing it finds the newest), then writes the file the answers round reads.
    ports: {
      clock: 'system',
      batches: { operations: ['GetItem'] },
      reviews: ['GetItem'],
      checks: ['GetItem'],
      // The signed-in person recorded as who wrote each file, by its ETag and version: never in
      // metadata, which anyone who can write to answers/ can set.
      writers: ['PutItem'],
      objects: { read: ['answers/*', 'reference/*'], write: ['answers/*'] },
    },
    kept: {
      'ObjectsRead s3:GetObject':
        'An answer naming a new sheet: the sheet must be there (its head is read); a decision reads the NCM table dropped into reference/ncm/, when one is.',
      'ObjectsList s3:ListBucket':
        'An answer naming a sheet not uploaded is refused as such (a 404), not a 500.',
    },
  },
} as const satisfies Record<ConsoleHandlerName, ConsoleFunctionDescription>;

export const describeConsoleFunction = (name: ConsoleHandlerName): ConsoleFunctionDescription =>
  CONSOLE_FUNCTIONS[name];

/** The variables the CDK app sets on a console function: its ports', then its configured settings. */
export const consoleEnvironmentOf = (
  name: ConsoleHandlerName,
  configured: { capOverride: boolean },
): EnvName[] => {
  const { ports, settings = [] } = describeConsoleFunction(name);
  const names = (Object.keys(ports) as ConsolePortName[]).flatMap(
    (port): readonly EnvName[] => CONSOLE_PORT_ENVIRONMENT[port],
  );
  if (settings.includes('capOverride') && configured.capOverride) names.push(ENV.capOverride);
  return [...new Set(names)];
};
