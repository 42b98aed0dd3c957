import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.js';
import { type Synthesized, synthesize, TEST_CONTEXT } from './synth.js';

let synth: Synthesized;

beforeAll(() => {
  // With nag on: synthesis itself fails on an unacknowledged finding.
  synth = synthesize();
});

type Acknowledgement = { path: string; id: string; reason: string };

/**
 * Every cdk-nag acknowledgement in the tree, from the metadata Validations.acknowledge() records.
 * CDK acknowledges some of its own CloudFormation-Validate rules; those are not ours.
 */
const acknowledgements = (root: IConstruct): Acknowledgement[] =>
  root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      )
      .filter(({ id }) => !id.startsWith('CloudFormation-Validate::')),
  );

/** The pack with acknowledgements ignored: every finding there is. */
class EveryFinding extends AwsSolutionsChecks {}
(EveryFinding.prototype as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in the synthesized app', () => {
    const report = new AwsSolutionsChecks(synth.built.app).validateScope(synth.built.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('finds nothing before synthesis either: finding ids do not depend on the phase', () => {
    const { app } = buildApp({ context: { 'aws:cdk:bundling-stacks': [] }, nag: false });
    expect(new AwsSolutionsChecks(app).validateScope(app).violations).toEqual([]);
  });

  it('every acknowledgement names one finding, of an expected rule, with a reason', () => {
    const all = acknowledgements(synth.built.app);
    expect(all.length).toBeGreaterThan(0);
    for (const { id, reason } of all) {
      expect(id).toMatch(/^AwsSolutions-(IAM5\[(Resource|Action)::.+\]|SMG4|SQS3|COG8|CFR2|CFR4|L1)$/);
      expect(reason.length, id).toBeGreaterThanOrEqual(40);
      expect(reason, id).not.toContain(id);
    }
    // The resource-level IAM5 wildcards: objects under a prefix, index ARNs, function versions,
    // and "*" only where AWS offers no resource-level permission (workflow logs and X-Ray).
    const resources = [...new Set(all.map(({ id }) => /Resource::(.*)\]$/.exec(id)?.[1]).filter(Boolean))];
    for (const resource of resources) {
      expect(resource).toMatch(
        /\/inbox\/\*$|\/outbox\/\*$|\/reference\/\*$|\/work\/\*$|\/requests\/\*$|\/answers\/\*$|\/index\/\*$|\.Arn>:\*$|^\*$|ConsoleSiteBucketArn\/\*$|:s3:::cdk-\w+-assets-<AWS::AccountId>-<AWS::Region>\/\*$/,
      );
    }
  });

  it('the Answers workflow adds only acknowledgements of kinds already made, each where it arises', () => {
    const all = acknowledgements(synth.built.app);
    const at = (suffix: string) => all.filter(({ path }) => path.endsWith(suffix)).map(({ id }) => id);
    // Reads answers/ (the filled file and its sheets); writes the report into the outbox.
    expect(at('/Functions/PrepareAnswersRole')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Resource::.+\/answers\/\*\]$/),
        expect.stringMatching(/Resource::.+\/outbox\/\*\]$/),
        expect.stringMatching(/Resource::.+\/index\/\*\]$/),
      ]),
    );
    // Invoked by name: the dispatcher's ARN alone, no version or alias wildcard to acknowledge.
    expect(at('/Functions/PrepareAnswersRole').join(' ')).not.toMatch(/DispatchRows.+\.Arn>:\*/);
    expect(at('/Functions/FinalizeAnswersRole')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Resource::.+\/outbox\/\*\]$/),
        expect.stringMatching(/Resource::.+\/index\/\*\]$/),
      ]),
    );
    expect(at('/Functions/FinalizeAnswersRole').join(' ')).not.toContain('/answers/');
    expect(at('/AnswersStartDeadLetterQueue')).toEqual(['AwsSolutions-SQS3']);
    // The workflow's role: X-Ray/logs delivery, and versions of its three functions.
    const workflowRole = at('/AnswersWorkflow/StateMachine/Role');
    expect(workflowRole).toContain('AwsSolutions-IAM5[Resource::*]');
    expect(workflowRole.filter((id) => /\.Arn>:\*\]$/.test(id))).toHaveLength(3);
  });

  it('the console adds acknowledgements only where they arise, none for a public or unauthenticated path', () => {
    const all = acknowledgements(synth.built.app);
    const at = (suffix: string) => all.filter(({ path }) => path.endsWith(suffix)).map(({ id }) => id);
    // Its functions: the same object and review-index grants the pipeline's functions make.
    for (const role of ['ConsoleReadRole', 'ConsoleFilesRole', 'ConsoleAnswersRole']) {
      for (const id of at(`Console/Functions/${role}`)) {
        expect(id, role).toMatch(
          /IAM5\[(Action::s3:(GetObject|GetBucket|List|Abort)\*|Resource::.+\/(outbox|inbox|answers|index|reference)\/\*)\]$/,
        );
      }
    }
    expect(at('Console/Site/Role')).toContain('AwsSolutions-IAM5[Resource::*]');
    expect(at('Console/Site/Role')).toContain(
      'AwsSolutions-IAM5[Resource::NcmBatchClassifier-Stateful:ConsoleSiteBucketArn/*]',
    );
    expect(all.filter(({ id }) => id === 'AwsSolutions-L1').map(({ path }) => path)).toEqual([
      expect.stringMatching(/^Console\/Custom::CDKBucketDeployment/),
    ]);
    expect(at('Console/Auth/UserPool')).toEqual(['AwsSolutions-COG8']);
    expect(at('Stateful/ConsoleSite/Distribution').sort()).toEqual([
      'AwsSolutions-CFR2',
      'AwsSolutions-CFR4',
    ]);
    // Never acknowledged: authorization on a route, MFA, public buckets, logging.
    const never = /APIG1|APIG4|COG1|COG2|CFR1|CFR3|CFR7|S1$|S2$|S10|IAM4/;
    expect(all.filter(({ id }) => never.test(id))).toEqual([]);
  });

  it('every acknowledgement is in use: the finding it names exists below where it is recorded', () => {
    const { app } = buildApp({ context: { ...TEST_CONTEXT }, nag: false });
    const findings = new EveryFinding(app).validateScope(app).violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => ({
        id: violation.ruleName,
        path: resource.constructPath,
      })),
    );
    const unused = acknowledgements(app).filter(
      (ack) =>
        !findings.some((finding) => finding.id === ack.id && (finding.path ?? '').startsWith(ack.path)),
    );
    expect(unused).toEqual([]);
  });
});
