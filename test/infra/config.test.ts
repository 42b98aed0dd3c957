import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.js';
import {
  InvalidContextError,
  logRetentionFor,
  parsePipelineContext,
  UNSET_TCS_BASE_URL,
} from '../../infra/config.js';

describe('CDK context', () => {
  it('has defaults for everything, so a fresh clone synthesizes', () => {
    expect(parsePipelineContext({})).toEqual({
      tcsBaseUrl: UNSET_TCS_BASE_URL,
      tcsBaseUrlConfigured: false,
      retentionDays: 90,
      leaseScope: 'org',
      logRetention: RetentionDays.THREE_MONTHS,
      auditLockDays: 1826,
      noticeEmails: [],
      questionReminderDay: 21,
    });
  });

  it('takes the addresses notices go to as a list or as one string separated by commas, and refuses a bad one', () => {
    expect(parsePipelineContext({ noticeEmails: 'a@example.com, b@example.com' }).noticeEmails).toEqual([
      'a@example.com',
      'b@example.com',
    ]);
    expect(parsePipelineContext({ noticeEmails: ['c@example.com'] }).noticeEmails).toEqual(['c@example.com']);
    expect(() => parsePipelineContext({ noticeEmails: 'not-an-address' })).toThrow(/noticeEmails/);
    expect(() => parsePipelineContext({ questionReminderDay: '30' })).toThrow(/questionReminderDay/);
  });

  it('takes the strings the CLI passes (-c key=value)', () => {
    const config = parsePipelineContext({
      tcsBaseUrl: 'https://api.example.com/v1/',
      capOverride: '4',
      retentionDays: '45',
      outboxRetentionDays: '365',
      batchTimeoutHours: '24',
      leaseScope: 'acme.prod',
      alarmEmail: 'ops@example.com',
    });
    expect(config).toMatchObject({
      tcsBaseUrl: 'https://api.example.com/v1',
      tcsBaseUrlConfigured: true,
      capOverride: 4,
      retentionDays: 45,
      outboxRetentionDays: 365,
      batchTimeoutHours: 24,
      leaseScope: 'acme.prod',
      alarmEmail: 'ops@example.com',
      logRetention: RetentionDays.TWO_MONTHS,
    });
  });

  it.each([
    [{ tcsBaseUrl: 'http://api.example.com/v1' }, /tcsBaseUrl[\s\S]*https/],
    [{ tcsBaseUrl: 'https://api.example.com' }, /tcsBaseUrl[\s\S]*\/v1/],
    [{ capOverride: '0' }, /capOverride/],
    [{ capOverride: 'ten' }, /capOverride/],
    [{ retentionDays: -1 }, /retentionDays/],
    [{ batchTimeoutHours: 1.5 }, /batchTimeoutHours/],
    // Past a Standard execution's year less the 3 h around the wait.
    [{ batchTimeoutHours: 8758 }, /batchTimeoutHours/],
    [{ leaseScope: 'two words' }, /leaseScope/],
    [{ alarmEmail: 'not-an-address' }, /alarmEmail/],
    [{ retentionDays: 90, outboxRetentionDays: 30 }, /outboxRetentionDays[\s\S]*at least retentionDays/],
  ])('refuses %j with a message naming the key', (context, message) => {
    expect(() => parsePipelineContext(context)).toThrow(InvalidContextError);
    expect(() => parsePipelineContext(context)).toThrow(message);
  });

  it('rounds retention up to a period CloudWatch Logs accepts', () => {
    expect(logRetentionFor(1)).toBe(RetentionDays.ONE_DAY);
    expect(logRetentionFor(30)).toBe(RetentionDays.ONE_MONTH);
    expect(logRetentionFor(31)).toBe(RetentionDays.TWO_MONTHS);
    expect(logRetentionFor(3653)).toBe(RetentionDays.TEN_YEARS);
  });

  it('buildApp fails on bad context before building anything', () => {
    expect(() => buildApp({ context: { capOverride: -3 }, nag: false })).toThrow(InvalidContextError);
  });

  it('without tcsBaseUrl the app synthesizes, warns, and points the functions at an address that never resolves', () => {
    const { pipeline } = buildApp({ context: { 'aws:cdk:bundling-stacks': [] }, nag: false });
    Annotations.fromStack(pipeline).hasWarning('*', Match.stringLikeRegexp('tcsBaseUrl is not set'));
    Template.fromStack(pipeline).hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ TCS_BASE_URL: UNSET_TCS_BASE_URL }) },
    });
  });
});
