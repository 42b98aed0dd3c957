/**
 * The operators' dashboard in the pipeline stack: every business metric the handlers write, under
 * the namespace and dimensions they write it with; every alarm of the stack; the per-batch tables
 * on the log groups the lines are written to. The body is read as CloudWatch will: the template's
 * Fn::Join rendered, references as `<LogicalId…>`, then parsed as JSON.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUSINESS_METRIC_FIELDS,
  BUSINESS_METRICS,
  type HandlerName,
  SERVICE_NAME,
} from '../../shared/contract.js';
import { OUTPUT_STATUSES } from '../../shared/pipeline/core/row-statuses.js';
import {
  type CfnTemplate,
  functionLogicalIds,
  renderReference,
  resourcesOfType,
  synthesize,
} from './synth.js';

type Widget = { type: string; width: number; height: number; properties: Record<string, unknown> };
/** A metric as a widget lists it: namespace, name, then dimension name and value pairs, then options. */
type MetricLine = (string | Record<string, unknown>)[];

let json: CfnTemplate;
let widgets: Widget[];
let dashboard: Record<string, unknown>;

beforeAll(() => {
  json = synthesize().pipelineJson;
  const dashboards = resourcesOfType(json, 'AWS::CloudWatch::Dashboard');
  expect(dashboards).toHaveLength(1);
  dashboard = dashboards[0]![1].Properties ?? {};
  const body = renderReference(dashboard.DashboardBody, new Map());
  widgets = (JSON.parse(body) as { widgets: Widget[] }).widgets;
});

const metricLines = (): MetricLine[] =>
  widgets.flatMap((widget) => (widget.properties.metrics as MetricLine[] | undefined) ?? []);

/** The dimensions of a metric line, as a record. */
const dimensionsOf = (line: MetricLine): Record<string, string> => {
  const pairs = line.slice(2).filter((part): part is string => typeof part === 'string');
  return Object.fromEntries(
    Array.from({ length: pairs.length / 2 }, (_, i) => [pairs[2 * i], pairs[2 * i + 1]]),
  );
};

/** Log group logical id of a handler's function, as its LoggingConfig names it. */
const logGroupOf = (ids: Record<HandlerName, string>, name: HandlerName): string => {
  const config = json.Resources[ids[name]]?.Properties?.LoggingConfig as { LogGroup: unknown };
  return renderReference(config.LogGroup, new Map());
};

describe('pipeline stack: the dashboard', () => {
  it('is named after the stack and its region, and opens on the last day', () => {
    expect(renderReference(dashboard.DashboardName, new Map())).toBe(
      'NcmBatchClassifier-Pipeline-{AWS::Region}',
    );
    expect(renderReference(dashboard.DashboardBody, new Map())).toContain('"start":"-P1D"');
  });

  it('graphs every business metric, in its namespace, under the service the handlers name', () => {
    const lines = metricLines();
    const { namespace, ...names } = BUSINESS_METRICS;
    const graphed = new Set(lines.map((line) => line[1]));
    for (const name of Object.values(names)) expect(graphed, name).toContain(name);
    for (const line of lines) {
      expect(line[0]).toBe(namespace);
      expect(dimensionsOf(line)[BUSINESS_METRIC_FIELDS.service]).toBe(SERVICE_NAME);
    }
    expect(namespace).toBe('NcmBatchClassifier');
  });

  it('shows rows by every final status, as they finish and per finished batch', () => {
    for (const name of [BUSINESS_METRICS.rowsFinished, BUSINESS_METRICS.batchRows]) {
      const statuses = metricLines()
        .filter((line) => line[1] === name)
        .map((line) => dimensionsOf(line)[BUSINESS_METRIC_FIELDS.status]);
      expect(statuses.sort()).toEqual([...OUTPUT_STATUSES].sort());
    }
    for (const line of metricLines().filter(
      (line) => line[1] !== BUSINESS_METRICS.rowsFinished && line[1] !== BUSINESS_METRICS.batchRows,
    )) {
      expect(Object.keys(dimensionsOf(line))).toEqual([BUSINESS_METRIC_FIELDS.service]);
    }
  });

  it("lists every alarm of the stack, and graphs the pipeline's own two with their thresholds", () => {
    const alarmArns = resourcesOfType(json, 'AWS::CloudWatch::Alarm').map(([id]) => `<${id}.Arn>`);
    expect(alarmArns).toHaveLength(10);
    const status = widgets.filter((widget) => widget.type === 'alarm');
    expect(status).toHaveLength(1);
    expect((status[0]!.properties.alarms as string[]).sort()).toEqual(alarmArns.sort());

    const graphed = widgets.flatMap((widget) =>
      ((widget.properties.annotations as { alarms?: string[] } | undefined)?.alarms ?? []).map(String),
    );
    expect(graphed).toHaveLength(2);
    for (const arn of graphed)
      expect(arn).toMatch(/^<Alarms(RowsEndedInError|LeasesHeldPastExpiry)\w+\.Arn>$/);
  });

  it('reads each batch by its id from the log groups the metric lines are written to', () => {
    const ids = functionLogicalIds(json);
    const tables = widgets.filter((widget) => widget.type === 'log');
    expect(tables).toHaveLength(2);
    const [asRowsFinish, finished] = tables.map((widget) => String(widget.properties.query));
    expect(asRowsFinish).toContain(`SOURCE '${logGroupOf(ids, 'row-complete')}'`);
    expect(asRowsFinish).toContain(`SOURCE '${logGroupOf(ids, 'row-execution-ended')}'`);
    expect(asRowsFinish).toContain(`by ${BUSINESS_METRIC_FIELDS.batchId}`);
    expect(asRowsFinish).toContain(`sum(${BUSINESS_METRICS.billedUsd})`);
    expect(finished).toContain(`SOURCE '${logGroupOf(ids, 'finalize-batch')}'`);
    expect(finished).toContain(BUSINESS_METRIC_FIELDS.batchId);
    expect(finished).toContain(`ispresent(${BUSINESS_METRICS.batchesFinished})`);
  });

  it('fits the 24-column grid', () => {
    for (const widget of widgets) expect(widget.width).toBeLessThanOrEqual(24);
    expect(widgets.filter((widget) => widget.width === 24)).toHaveLength(2);
  });
});
