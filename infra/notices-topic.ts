/**
 * The topic of notices, always in the stack (shared/pipeline/notices/): finalize-batch tells it a
 * batch finished, that questions wait and that verdicts wait to be checked; the daily sweep, that
 * questions still wait on the reminder day. Each address of `noticeEmails` is subscribed (it
 * confirms from the email SNS sends); a chat or another system subscribes itself, filtering on the
 * `kind` message attribute if it wants only some. Encrypted with the AWS managed SNS key: only
 * Lambda functions of this account publish to it, and they need no key grant for that key.
 */
import { CfnOutput, type Stack } from 'aws-cdk-lib';
import { Alias } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { PipelineConfig } from './config.js';

/** The topic, one email subscription per configured address, and its ARN as an output. */
export const noticesTopic = (scope: Stack, config: Pick<PipelineConfig, 'noticeEmails'>): Topic => {
  const topic = new Topic(scope, 'NoticesTopic', {
    displayName: 'NCM batch classifier',
    masterKey: Alias.fromAliasName(scope, 'NoticesTopicKey', 'alias/aws/sns'),
    enforceSSL: true,
  });
  for (const address of config.noticeEmails) topic.addSubscription(new EmailSubscription(address));
  new CfnOutput(scope, 'NoticesTopicArn', {
    value: topic.topicArn,
    description: 'Subscribe here to be told a batch finished, questions wait, verdicts wait to be checked',
  });
  return topic;
};
