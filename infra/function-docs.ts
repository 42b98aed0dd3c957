/**
 * The part of functions/README.md that says what each function may touch, written from the
 * functions' descriptions (functions/catalogue.ts) so the README says what the stack deploys. It
 * is lists, wrapped short, not tables: a reader sees each line whole.
 *
 *   npm run docs:functions   rewrites the part between the two markers
 *   test/infra/function-docs.test.ts fails when that part differs from what this renders
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  describeFunction,
  ENV,
  type EnvName,
  environmentOf,
  type PortName,
  type PortUses,
} from '../functions/catalogue.js';
import { ENV_MEANING } from '../functions/catalogue-words.js';
import { HANDLER_NAMES } from '../shared/contract.js';

export const README_PATH = fileURLToPath(new URL('../functions/README.md', import.meta.url));
export const TABLES_BEGIN =
  '<!-- functions:begin (npm run docs:functions writes this part from catalogue.ts) -->';
export const TABLES_END = '<!-- functions:end -->';

/** Every setting configured: the tables show what a function may be given. */
const ALL_SETTINGS = {
  capOverride: true,
  batchTimeoutHours: true,
  auditLockDays: true,
  questionReminderDay: true,
} as const;
/** Set on every function by infra/pipeline-functions.ts, not by a port. */
const ON_EVERY_FUNCTION: readonly EnvName[] = [ENV.serviceName, ENV.nodeOptions];

const code = (text: string) => `\`${text}\``;

/** A port's reach, in words: what its grant lets the function do. */
const REACH: { [P in PortName]-?: (use: NonNullable<PortUses[P]>) => string | null } = {
  clock: () => null,
  service: () => "the key's secret: read",
  objects: ({ read = [], write = [], streams, lock = [] }) => {
    const access = [
      ...(read.length > 0 ? [`read ${read.map(code).join(', ')}`] : []),
      ...(write.length > 0 ? [`write ${write.map(code).join(', ')}${streams ? ' (in parts)' : ''}`] : []),
      ...(lock.length > 0 ? [`lock audit.csv in ${lock.map(code).join(', ')} (Object Lock)`] : []),
    ];
    return `bucket: ${access.join(', ')}`;
  },
  queue: (uses) => `rows queue: ${uses.join(', ')}`,
  batches: (use) => `batch table: ${use.join(', ')}`,
  reviews: (use) => `review table and its indexes: ${use.join(', ')}`,
  audit: (use) => `batch table's audit events: ${use.join(', ')}`,
  checks: (use) => `review table's verdicts to check and its indexes: ${use.join(', ')}`,
  simWatches: (use) => `review table's SIM openings awaiting confirmation: ${use.join(', ')}`,
  writers: (use) => `review table's records of who wrote each dropped file: ${use.join(', ')}`,
  cache: (use) => `product cache: ${use.join(', ')}`,
  leases: (use) => `lease table: ${use.join(', ')}`,
  workflows: () => 'Row workflow: start executions',
  waiters: () => 'Batch and Answers workflows: SendTaskSuccess',
  partials: () => 'write-partial-results: invoke',
  events: () => 'default bus: put events',
  notifier: () => 'topic of notices: publish',
  kick: () => 'dispatch-rows: invoke',
};

const portEntries = (ports: PortUses) => Object.entries(ports) as [PortName, unknown][];

/** The longest line the README's lists are wrapped to, so a reader sees each one whole. */
const WRAP_AT = 100;

/**
 * One list item, wrapped after a comma or a space so no line passes `WRAP_AT`; its continuation
 * lines are indented under its text, as Markdown keeps them in the item.
 */
const listItem = (text: string, depth = 0): string[] => {
  const indent = '  '.repeat(depth);
  const lines: string[] = [];
  let line = `${indent}- `;
  for (const word of text.split(' ')) {
    const fresh = line.trim() === '-';
    if (!fresh && line.length + 1 + word.length > WRAP_AT) {
      lines.push(line);
      line = `${indent}  ${word}`;
    } else line = fresh ? `${line}${word}` : `${line} ${word}`;
  }
  return [...lines, line];
};

/** A function's section: its handler, its ports, its environment, and what its role may do. */
const functionSection = (name: (typeof HANDLER_NAMES)[number]): string[] => {
  const { entry, ports } = describeFunction(name);
  const portNames = portEntries(ports).map(([port, use]) =>
    port === 'service' && use === 'hand-back' ? 'service (a 429 handed back at once)' : port,
  );
  const reach = portEntries(ports)
    .map(([port, use]) => (REACH[port] as (use: unknown) => string | null)(use))
    .filter((line): line is string => line !== null);
  const environment = environmentOf(name, ALL_SETTINGS).map(code);
  return [
    `### ${code(name)}`,
    '',
    ...listItem(`handler: ${code(entry)}`),
    ...listItem(`ports its handler is given: ${portNames.join(', ')}`),
    ...listItem(`environment: ${environment.length > 0 ? environment.join(', ') : 'none of its own'}`),
    ...listItem('its role may:'),
    ...reach.flatMap((line) => listItem(line, 1)),
    '',
  ];
};

const setOn = (variable: EnvName): string => {
  if (ON_EVERY_FUNCTION.includes(variable)) return 'every function';
  return HANDLER_NAMES.filter((name) => environmentOf(name, ALL_SETTINGS).includes(variable))
    .map(code)
    .join(', ');
};

/** The README's part between the markers, markers included. */
export const renderFunctionTables = (): string =>
  [
    TABLES_BEGIN,
    '',
    ...HANDLER_NAMES.flatMap(functionSection),
    `Every function also has ${ON_EVERY_FUNCTION.map(code).join(' and ')}.`,
    '',
    '### The environment variables',
    '',
    ...Object.values(ENV).flatMap((variable) =>
      listItem(`${code(variable)}: ${ENV_MEANING[variable]}. Set on ${setOn(variable)}.`),
    ),
    '',
    TABLES_END,
  ].join('\n');

/** The part of `readme` between the markers, markers included; throws when they are missing. */
export const tablesIn = (readme: string): { start: number; end: number; text: string } => {
  const start = readme.indexOf(TABLES_BEGIN);
  const endMarker = readme.indexOf(TABLES_END, start);
  if (start < 0 || endMarker < 0)
    throw new Error(`${README_PATH} has no ${TABLES_BEGIN} … ${TABLES_END} part`);
  const end = endMarker + TABLES_END.length;
  return { start, end, text: readme.slice(start, end) };
};

const runAsMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (runAsMain) {
  const readme = readFileSync(README_PATH, 'utf8');
  const { start, end } = tablesIn(readme);
  writeFileSync(README_PATH, readme.slice(0, start) + renderFunctionTables() + readme.slice(end));
  console.log(`wrote the function lists of ${README_PATH}`);
}
