/**
 * cdk-nag (v3) acknowledgements. Each is recorded where the finding arises, next to the grant
 * or resource that causes it, so it goes away with its cause.
 *
 * v3 matches findings one by one (`AwsSolutions-IAM5[Resource::<Bucket.Arn>/inbox/*]`), and
 * names a resource the way it reads in the template. {@link inFinding} renders a value the
 * same way, from the token the code already holds. That is stable only because the stacks
 * share resources through explicitly named exports: an automatic cross-stack reference is a
 * GetAtt before synthesis and an import with a generated name during it, so its finding id
 * would change between the two.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Acknowledges findings on `scope` and everything below it, all for the same reason. */
export const acknowledge = (scope: IConstruct, reason: string, ...ids: string[]): void =>
  Validations.of(scope).acknowledge(...ids.map((id) => ({ id, reason })));

/**
 * A value (an ARN token) as it appears in a finding id, rendered the way cdk-nag 3.0.2's
 * `flattenCfnReference` does: `<Logical.Arn>` for GetAtt, `<Logical>` for Ref, an import by
 * its export name, `${X}` as `<X>`, joins joined.
 */
export const inFinding = (scope: IConstruct, value: string): string =>
  flatten(Stack.of(scope).resolve(value));

const flatten = (node: unknown): string => {
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const intrinsic = node as Record<string, unknown>;
  if (intrinsic['Fn::Join']) {
    const [separator, parts] = intrinsic['Fn::Join'] as [string, unknown[]];
    return parts.map(flatten).join(separator);
  }
  if (intrinsic['Fn::GetAtt']) {
    const [resource, attribute] = intrinsic['Fn::GetAtt'] as [unknown, unknown];
    return `<${flatten(resource)}.${flatten(attribute)}>`;
  }
  if (intrinsic['Fn::ImportValue']) return flatten(intrinsic['Fn::ImportValue']);
  if (intrinsic.Ref) return `<${flatten(intrinsic.Ref)}>`;
  return JSON.stringify(node);
};

/** Finding id of a wildcard resource in an IAM policy. */
export const wildcardResource = (resource: string): string => `AwsSolutions-IAM5[Resource::${resource}]`;
/** Finding id of a wildcard action in an IAM policy. */
export const wildcardAction = (action: string): string => `AwsSolutions-IAM5[Action::${action}]`;
