/**
 * CloudFormation's DescribeStacks, answered from the synthesized templates: a stack's outputs
 * with their values resolved to the local stand-ins' names, as a deployed stack reports its own.
 * What reads a deployment by its stack (the smoke test, shared/smoke) reads the local one the
 * same way. Read only: it describes, it creates nothing.
 */
import { type StackTemplate, TemplateResolver, UnsupportedTemplateError } from './template.js';

/** The fields of DescribeStacks' `Stacks[n]` that the templates can answer. */
export type LocalStackDescription = {
  StackName: string;
  /** Every stack the runtime plays is in place as soon as it has started. */
  StackStatus: 'CREATE_COMPLETE';
  Outputs: { OutputKey: string; OutputValue: string; ExportName?: string }[];
};

/**
 * The stack named `stackName`, or null when the app has none. Outputs of resources the runtime
 * has no stand-in for (the console's CloudFront distribution) are left out, as they would be
 * unreadable here anyway.
 */
export const describeLocalStack = (
  stacks: readonly StackTemplate[],
  queueUrl: (queueName: string) => string,
  stackName: string,
): LocalStackDescription | null => {
  const stack = stacks.find((candidate) => candidate.stackName === stackName);
  if (!stack) return null;
  const resolver = new TemplateResolver(stacks, { queueUrl });
  const outputs = Object.entries(stack.template.Outputs ?? {}).flatMap(([OutputKey, output]) => {
    try {
      const OutputValue = resolver.resolveString(output.Value, stack);
      const exportName = output.Export ? resolver.resolveString(output.Export.Name, stack) : undefined;
      return [{ OutputKey, OutputValue, ...(exportName === undefined ? {} : { ExportName: exportName }) }];
    } catch (error) {
      if (error instanceof UnsupportedTemplateError) return [];
      throw error;
    }
  });
  return { StackName: stackName, StackStatus: 'CREATE_COMPLETE', Outputs: outputs };
};
