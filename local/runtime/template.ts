/**
 * The synthesized CloudFormation templates, read as the local runtime needs them: every
 * intrinsic a function's environment, a workflow definition or a rule holds is resolved to
 * the name, URL or ARN of the local stand-in that plays the resource.
 *
 *   { "Fn::ImportValue": "NcmBatchClassifier-Stateful:BatchTableName" }
 *       ─▶ the export's Value in the stateful template ─▶ { "Ref": "BatchTableB4A9AF63" }
 *       ─▶ "NcmBatchClassifier-Stateful-BatchTableB4A9AF63"          (the dynalite table)
 *
 * Names are deterministic (stack name + logical id, as CloudFormation generates them, minus
 * the random suffix), so a later run on the same data folder finds the same tables, queue
 * and bucket. A function is named by its handler (template metadata), which is also how
 * infra/definitions.ts renders function ARNs: `arn:aws:lambda:us-east-1:000000000000:function:row-poll`.
 */
import { createHash } from 'node:crypto';
import { HANDLER_METADATA_KEY } from '../../shared/contract.js';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';

export type CfnResource = {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
};
type CfnTemplate = {
  Resources?: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
};
export type StackTemplate = { stackName: string; template: CfnTemplate };

/** A resource together with the stack that declares it. */
export type StackResource = { stack: StackTemplate; logicalId: string; resource: CfnResource };

export class UnsupportedTemplateError extends Error {
  override readonly name = 'UnsupportedTemplateError';
}

/** `arn:aws:lambda:…:function:name[:qualifier]` or `name` → `name` (functions are named by their handler). */
export const functionNameOfArn = (arnOrName: string): string => {
  const match = /:function:([^:]+)/.exec(arnOrName);
  return match?.[1] ?? arnOrName;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The six-character suffix Secrets Manager appends to a secret's ARN; fixed per name here. */
const secretSuffix = (name: string): string =>
  createHash('sha256').update(name).digest('base64url').replace(/[-_]/g, 'x').slice(0, 6);

export type ResolverOptions = {
  /** The queue URL the local SQS stand-in serves for a queue name. */
  queueUrl: (queueName: string) => string;
};

/**
 * Resolves intrinsics (Ref, Fn::GetAtt, Fn::ImportValue, Fn::Join, Fn::Sub, Fn::Select,
 * Fn::Split, pseudo parameters) to local values. Anything else is an error naming it: a
 * template feature the runtime does not play must fail loudly, not run half-wired.
 */
export class TemplateResolver {
  private readonly stacks: readonly StackTemplate[];
  private readonly queueUrlOf: (queueName: string) => string;

  constructor(stacks: readonly StackTemplate[], options: ResolverOptions) {
    this.stacks = stacks;
    this.queueUrlOf = options.queueUrl;
  }

  /** Every resource of one CloudFormation type, across the stacks. */
  resourcesOfType(type: string): StackResource[] {
    return this.stacks.flatMap((stack) =>
      Object.entries(stack.template.Resources ?? {})
        .filter(([, resource]) => resource.Type === type)
        .map(([logicalId, resource]) => ({ stack, logicalId, resource })),
    );
  }

  /** Deep-resolves a template value declared in `stack`. */
  resolve(value: unknown, stack: StackTemplate): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item, stack));
    if (!isObject(value)) return value;
    const keys = Object.keys(value);
    const [only] = keys;
    if (keys.length === 1 && only !== undefined && (only === 'Ref' || only.startsWith('Fn::'))) {
      return this.intrinsic(only, value[only], stack);
    }
    return Object.fromEntries(keys.map((key) => [key, this.resolve(value[key], stack)]));
  }

  /** Like {@link resolve}, for a value that must come out a string. */
  resolveString(value: unknown, stack: StackTemplate): string {
    const resolved = this.resolve(value, stack);
    if (typeof resolved === 'string') return resolved;
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    throw new UnsupportedTemplateError(`Expected a string, got ${JSON.stringify(resolved)}`);
  }

  private intrinsic(name: string, argument: unknown, stack: StackTemplate): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(String(argument), stack);
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument)
          ? (argument as [string, string])
          : (String(argument).split('.') as [string, string]);
        return this.getAtt(stack, logicalId, attribute);
      }
      case 'Fn::ImportValue':
        return this.importValue(this.resolveString(argument, stack));
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.resolve(parts, stack) as unknown[]).map((part) => String(part)).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        return (this.resolve(list, stack) as unknown[])[Number(this.resolve(index, stack))];
      }
      case 'Fn::Split': {
        const [separator, text] = argument as [string, unknown];
        return this.resolveString(text, stack).split(separator);
      }
      case 'Fn::Sub':
        return this.sub(argument, stack);
      default:
        throw new UnsupportedTemplateError(`The local runtime does not resolve ${name} (${stack.stackName})`);
    }
  }

  private sub(argument: unknown, stack: StackTemplate): string {
    const [text, variables] = Array.isArray(argument)
      ? (argument as [string, Record<string, unknown>])
      : [String(argument), {}];
    return text.replace(/\$\{([^}!][^}]*)\}/g, (_, expression: string) => {
      if (expression in variables) return this.resolveString(variables[expression], stack);
      const [logicalId, attribute] = expression.split('.');
      if (attribute !== undefined && logicalId !== undefined)
        return String(this.getAtt(stack, logicalId, attribute));
      return String(this.ref(expression, stack));
    });
  }

  private pseudo(name: string, stack: StackTemplate): string | undefined {
    const values: Record<string, string> = {
      'AWS::Region': LOCAL_REGION,
      'AWS::AccountId': LOCAL_ACCOUNT,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': stack.stackName,
    };
    return values[name];
  }

  private resourceIn(stack: StackTemplate, logicalId: string): CfnResource {
    const resource = stack.template.Resources?.[logicalId];
    if (!resource) throw new UnsupportedTemplateError(`${stack.stackName} has no resource ${logicalId}`);
    return resource;
  }

  /** The local name of a named resource: its explicit name, else stack name + logical id. */
  localName(stack: StackTemplate, logicalId: string): string {
    const resource = this.resourceIn(stack, logicalId);
    const properties = resource.Properties ?? {};
    const explicit = (property: string) =>
      properties[property] === undefined ? undefined : this.resolveString(properties[property], stack);
    const generated = `${stack.stackName}-${logicalId}`;
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table':
        return explicit('TableName') ?? generated;
      case 'AWS::SQS::Queue':
        return explicit('QueueName') ?? generated;
      case 'AWS::S3::Bucket':
        // Bucket names are lowercase, at most 63 characters.
        return explicit('BucketName') ?? generated.toLowerCase().slice(0, 63);
      case 'AWS::SecretsManager::Secret':
        return explicit('Name') ?? generated;
      case 'AWS::Lambda::Function': {
        const handler = resource.Metadata?.[HANDLER_METADATA_KEY];
        return explicit('FunctionName') ?? (typeof handler === 'string' ? handler : logicalId);
      }
      case 'AWS::StepFunctions::StateMachine':
        return explicit('StateMachineName') ?? generated;
      case 'AWS::Events::EventBus':
        return explicit('Name') ?? generated;
      case 'AWS::Logs::LogGroup':
        return explicit('LogGroupName') ?? generated;
      case 'AWS::IAM::Role':
        // Role names are at most 64 characters.
        return explicit('RoleName') ?? generated.slice(0, 64);
      case 'AWS::Events::Rule':
        return explicit('Name') ?? generated;
      case 'AWS::SNS::Topic':
        return explicit('TopicName') ?? generated;
      case 'AWS::CloudFront::Distribution':
        // Its id, as the site bucket's policy names it (no stand-in serves it).
        return generated;
      default:
        throw new UnsupportedTemplateError(
          `The local runtime has no stand-in for ${resource.Type} (${stack.stackName}/${logicalId})`,
        );
    }
  }

  private arn(service: string, resource: string): string {
    return `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${resource}`;
  }

  /** What `Ref` returns, per resource type (CloudFormation's "Return values"). */
  ref(logicalId: string, stack: StackTemplate): unknown {
    if (logicalId === 'AWS::NoValue') return undefined;
    const pseudo = this.pseudo(logicalId, stack);
    if (pseudo !== undefined) return pseudo;
    const resource = this.resourceIn(stack, logicalId);
    const name = this.localName(stack, logicalId);
    switch (resource.Type) {
      case 'AWS::SQS::Queue':
        return this.queueUrlOf(name);
      case 'AWS::SecretsManager::Secret':
        return this.arn('secretsmanager', `secret:${name}-${secretSuffix(name)}`);
      case 'AWS::StepFunctions::StateMachine':
        return this.arn('states', `stateMachine:${name}`);
      case 'AWS::SNS::Topic':
        return this.arn('sns', name);
      default:
        return name;
    }
  }

  getAtt(stack: StackTemplate, logicalId: string, attribute: string): string {
    const resource = this.resourceIn(stack, logicalId);
    const name = this.localName(stack, logicalId);
    const key = `${resource.Type}.${attribute}`;
    switch (key) {
      case 'AWS::SQS::Queue.Arn':
        return this.arn('sqs', name);
      case 'AWS::SQS::Queue.QueueName':
        return name;
      case 'AWS::SQS::Queue.QueueUrl':
        return this.queueUrlOf(name);
      case 'AWS::S3::Bucket.Arn':
        return `arn:aws:s3:::${name}`;
      case 'AWS::DynamoDB::Table.Arn':
        return this.arn('dynamodb', `table/${name}`);
      case 'AWS::Lambda::Function.Arn':
        return this.arn('lambda', `function:${name}`);
      case 'AWS::StepFunctions::StateMachine.Arn':
        return this.arn('states', `stateMachine:${name}`);
      case 'AWS::StepFunctions::StateMachine.Name':
        return name;
      case 'AWS::Events::EventBus.Arn':
        return this.arn('events', `event-bus/${name}`);
      // Read only by the permission checks (permissions/): a function's role, its log group.
      case 'AWS::Events::Rule.Arn':
        return this.arn('events', `rule/${name}`);
      case 'AWS::Logs::LogGroup.Arn':
        return this.arn('logs', `log-group:${name}:*`);
      case 'AWS::IAM::Role.Arn':
        return `arn:aws:iam::${LOCAL_ACCOUNT}:role/${name}`;
      default:
        throw new UnsupportedTemplateError(`The local runtime does not resolve Fn::GetAtt ${key}`);
    }
  }

  private importValue(exportName: string): unknown {
    for (const stack of this.stacks) {
      for (const output of Object.values(stack.template.Outputs ?? {})) {
        if (output.Export && this.resolve(output.Export.Name, stack) === exportName) {
          return this.resolve(output.Value, stack);
        }
      }
    }
    throw new UnsupportedTemplateError(`No stack exports ${exportName}`);
  }
}
