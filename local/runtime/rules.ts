/**
 * EventBridge rules, locally: the template's rules route the events the runtime sees to
 * their targets, and schedule rules tick on a scaled clock.
 *
 *   S3 "Object Created" (put by submit) ─┐
 *   Step Functions status change ────────┼─▶ each rule's EventPattern ─▶ target: StartExecution
 *   PutEvents (Batch Completed, …) ──────┘                              or async Lambda invoke
 *   rate(1 minute) ─▶ every max(1 s, 60 s × timeScale) ─▶ target
 *
 * The pattern matcher covers the EventBridge syntax the templates use: exact values, prefix,
 * suffix, wildcard, anything-but, exists, equals-ignore-case, numeric; an operator it does not
 * know fails at start, never silently matches nothing.
 */
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '../aws/eventbridge.js';
import type { RuleSpec, RuleTarget } from './resources.js';
import { LOCAL_ACCOUNT, LOCAL_REGION, UnsupportedTemplateError } from './template.js';

const OPERATORS = new Set([
  'prefix',
  'suffix',
  'wildcard',
  'anything-but',
  'exists',
  'equals-ignore-case',
  'numeric',
]);

const wildcardRegExp = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

const NUMERIC: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '=': (a, b) => a === b,
  '>=': (a, b) => a >= b,
  '>': (a, b) => a > b,
};

const matchesNumeric = (value: unknown, conditions: unknown[]): boolean => {
  if (typeof value !== 'number') return false;
  for (let i = 0; i + 1 < conditions.length; i += 2) {
    const test = NUMERIC[String(conditions[i])];
    if (!test?.(value, Number(conditions[i + 1]))) return false;
  }
  return true;
};

/** One element of a pattern's value list against one event value. */
const matchesElement = (element: unknown, value: unknown): boolean => {
  if (element === null || typeof element !== 'object') return element === value;
  const [operator, argument] = Object.entries(element as Record<string, unknown>)[0] ?? [];
  switch (operator) {
    case 'prefix':
      return typeof value === 'string' && value.startsWith(String(argument));
    case 'suffix':
      return typeof value === 'string' && value.endsWith(String(argument));
    case 'wildcard':
      return typeof value === 'string' && wildcardRegExp(String(argument)).test(value);
    case 'equals-ignore-case':
      return typeof value === 'string' && value.toLowerCase() === String(argument).toLowerCase();
    case 'anything-but': {
      const excluded = Array.isArray(argument) ? argument : [argument];
      return value !== undefined && !excluded.some((other) => matchesElement(other, value));
    }
    case 'numeric':
      return matchesNumeric(value, argument as unknown[]);
    default:
      return false;
  }
};

/** Does `event` match `pattern` (EventBridge semantics: every key matches; arrays match any element)? */
const matchesPattern = (pattern: Record<string, unknown>, event: unknown): boolean =>
  Object.entries(pattern).every(([key, expected]) => {
    const value =
      typeof event === 'object' && event !== null ? (event as Record<string, unknown>)[key] : undefined;
    if (Array.isArray(expected)) {
      const exists = expected.find(
        (element): element is { exists: boolean } =>
          typeof element === 'object' && element !== null && 'exists' in element,
      );
      if (exists) return exists.exists === (value !== undefined);
      const values = Array.isArray(value) ? value : [value];
      return values.some((one) => expected.some((element) => matchesElement(element, one)));
    }
    if (typeof expected === 'object' && expected !== null)
      return matchesPattern(expected as Record<string, unknown>, value);
    return false;
  });

/** Refuses a pattern using an operator the matcher does not implement. */
const checkPattern = (pattern: unknown, where: string): void => {
  if (Array.isArray(pattern)) {
    for (const element of pattern) {
      if (typeof element === 'object' && element !== null) {
        for (const operator of Object.keys(element)) {
          if (!OPERATORS.has(operator)) {
            throw new UnsupportedTemplateError(
              `${where}: event pattern operator "${operator}" is not played locally`,
            );
          }
        }
      }
    }
    return;
  }
  if (typeof pattern === 'object' && pattern !== null) {
    for (const [key, value] of Object.entries(pattern)) {
      if (key.startsWith('$')) throw new UnsupportedTemplateError(`${where}: "${key}" is not played locally`);
      checkPattern(value, where);
    }
  }
};

/** `rate(1 minute)` → 60 000 ms; cron expressions are not played locally. */
const rateMs = (expression: string): number => {
  const match = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!match)
    throw new UnsupportedTemplateError(`Schedule ${expression} is not played locally (only rate(...))`);
  const unit = match[2]?.startsWith('minute')
    ? 60_000
    : match[2]?.startsWith('hour')
      ? 3_600_000
      : 86_400_000;
  return Number(match[1]) * unit;
};

export const envelope = (fields: {
  source: string;
  detailType: string;
  detail: unknown;
  resources?: string[];
  time?: Date;
}): EventEnvelope => ({
  version: '0',
  id: randomUUID(),
  'detail-type': fields.detailType,
  source: fields.source,
  account: LOCAL_ACCOUNT,
  time: (fields.time ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  region: LOCAL_REGION,
  resources: fields.resources ?? [],
  detail: fields.detail,
});

export type RuleTargets = {
  /** A state machine target: StartExecution with the event; returns the execution ARN. */
  startExecution(stateMachineArn: string, input: unknown): Promise<string>;
  /** A Lambda target: an asynchronous invoke. */
  invokeAsync(functionArn: string, event: unknown): Promise<void>;
};

export type RoutedTarget = { rule: string; target: string; executionArn: string | null };

const inputFor = (target: RuleTarget, event: unknown): unknown => {
  if (target.input !== null) return target.input;
  if (target.inputPath !== null) {
    return target.inputPath
      .replace(/^\$\.?/, '')
      .split('.')
      .filter((key) => key !== '')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], event);
  }
  return event;
};

export class LocalRules {
  private readonly rules: readonly RuleSpec[];
  private readonly targets: RuleTargets;
  private readonly log: (line: string) => void;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly ticking = new Set<string>();

  constructor(rules: readonly RuleSpec[], targets: RuleTargets, log: (line: string) => void) {
    for (const rule of rules) if (rule.eventPattern) checkPattern(rule.eventPattern, rule.logicalId);
    for (const rule of rules) if (rule.scheduleExpression) rateMs(rule.scheduleExpression);
    this.rules = rules;
    this.targets = targets;
    this.log = log;
  }

  private deliver(rule: RuleSpec, target: RuleTarget, event: unknown): Promise<RoutedTarget> {
    const input = inputFor(target, event);
    if (target.arn.includes(':states:') && target.arn.includes(':stateMachine:')) {
      return this.targets
        .startExecution(target.arn, input)
        .then((executionArn) => ({ rule: rule.logicalId, target: target.arn, executionArn }));
    }
    if (target.arn.includes(':lambda:')) {
      return this.targets
        .invokeAsync(target.arn, input)
        .then(() => ({ rule: rule.logicalId, target: target.arn, executionArn: null }));
    }
    return Promise.reject(
      new UnsupportedTemplateError(`${rule.logicalId}: target ${target.arn} is not played locally`),
    );
  }

  /** Delivers an event on a bus to every matching rule's targets; resolves once each target took it. */
  async route(eventBusName: string, event: EventEnvelope): Promise<RoutedTarget[]> {
    const deliveries: Promise<RoutedTarget>[] = [];
    for (const rule of this.rules) {
      if (!rule.eventPattern || rule.eventBusName !== eventBusName) continue;
      if (!matchesPattern(rule.eventPattern, event)) continue;
      for (const target of rule.targets) deliveries.push(this.deliver(rule, target, event));
    }
    return Promise.all(deliveries);
  }

  /**
   * Starts the schedule rules: each fires every `rate × timeScale` (at least every second).
   * A tick whose previous delivery is still running is skipped, so a slow machine does not
   * pile invocations up (EventBridge would overlap them).
   */
  startSchedules(timeScale: number): void {
    for (const rule of this.rules) {
      if (!rule.scheduleExpression) continue;
      const every = Math.max(1_000, rateMs(rule.scheduleExpression) * timeScale);
      const tick = () => {
        if (this.ticking.has(rule.logicalId)) return;
        this.ticking.add(rule.logicalId);
        const event = envelope({ source: 'aws.events', detailType: 'Scheduled Event', detail: {} });
        Promise.all(rule.targets.map((target) => this.deliver(rule, target, event)))
          .catch((error: unknown) =>
            this.log(`${rule.logicalId}: scheduled delivery failed: ${String(error)}`),
          )
          .finally(() => this.ticking.delete(rule.logicalId));
      };
      const timer = setInterval(tick, every);
      this.timers.push(timer);
    }
  }

  stopSchedules(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }
}
