/**
 * The synthesized Batch, Row and Answers workflow definitions as plain ASL objects, for the
 * local runtime and the workflow tests to run with aws-local-stepfunctions.
 *
 * In the template a definition is an `Fn::Join` whose parts reference the functions
 * (`Fn::GetAtt [FunctionsPrepareBatch…, Arn]`) and pseudo parameters (`AWS::Partition`).
 * Rendering resolves every reference to a fixed, ARN-shaped string; a function becomes
 *
 *   arn:aws:lambda:us-east-1:000000000000:function:<handler name>     (e.g. …:function:prepare-batch)
 *
 * so a runner can wire each Task to `functions/<handler name>/handler.ts` by its ARN, or by
 * state name through `taskHandlers`. This module needs no construct tree: a template or a
 * cloud assembly read back from disk will do.
 */
import { HANDLER_METADATA_KEY, HANDLER_NAMES, type HandlerName } from '../shared/contract.js';

/** An ASL state, as much of it as a runner needs to type; the rest passes through. */
export type AslState = {
  Type: string;
  Resource?: string;
  Parameters?: Record<string, unknown>;
  Next?: string;
  End?: boolean;
  [field: string]: unknown;
};
export type AslDefinition = {
  StartAt: string;
  States: Record<string, AslState>;
  TimeoutSeconds?: number;
  [field: string]: unknown;
};

export type CloudFormationTemplate = {
  Resources?: Record<string, { Type: string; [field: string]: unknown }>;
};
/** What `app.synth()` returns, reduced to what is read here (a cx-api CloudAssembly fits). */
export type AssemblyLike = { stacks: ReadonlyArray<{ template: unknown }> };

export type RenderOptions = {
  /** @default 'us-east-1' */
  region?: string;
  /** @default '000000000000' */
  account?: string;
};

export type RenderedDefinitions = {
  batch: AslDefinition;
  row: AslDefinition;
  answers: AslDefinition;
  /** Each Task state's handler, read from the rendered definitions. */
  taskHandlers: {
    batch: Record<string, HandlerName>;
    row: Record<string, HandlerName>;
    answers: Record<string, HandlerName>;
  };
  /** The ARN each handler's function is rendered as. */
  functionArns: Record<HandlerName, string>;
};

const isAssembly = (source: AssemblyLike | CloudFormationTemplate): source is AssemblyLike =>
  Array.isArray((source as AssemblyLike).stacks);

/**
 * Renders the three workflows from the pipeline stack's template, or from a cloud assembly (the
 * stack holding the state machines is found by its resources).
 */
export const renderStateMachineDefinitions = (
  source: AssemblyLike | CloudFormationTemplate,
  options: RenderOptions = {},
): RenderedDefinitions => {
  const template = isAssembly(source) ? findPipelineTemplate(source) : source;
  const resources = template.Resources ?? {};
  const region = options.region ?? 'us-east-1';
  const account = options.account ?? '000000000000';

  const handlerOf = new Map<string, HandlerName>();
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const name = (resource.Metadata as Record<string, unknown> | undefined)?.[HANDLER_METADATA_KEY];
    if (typeof name === 'string' && (HANDLER_NAMES as readonly string[]).includes(name)) {
      handlerOf.set(logicalId, name as HandlerName);
    }
  }
  const functionArn = (handler: HandlerName) => `arn:aws:lambda:${region}:${account}:function:${handler}`;

  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': region,
    'AWS::AccountId': account,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const resolve = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const node = value as Record<string, unknown>;
    if (Array.isArray(node['Fn::Join'])) {
      const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
      return parts.map(resolve).join(separator);
    }
    if (typeof node.Ref === 'string') {
      const pseudoValue = pseudo[node.Ref];
      if (pseudoValue !== undefined) return pseudoValue;
      const handler = handlerOf.get(node.Ref);
      if (handler) return handler; // Ref of a function is its name
    }
    if (Array.isArray(node['Fn::GetAtt'])) {
      const [logicalId, attribute] = node['Fn::GetAtt'] as [string, string];
      const handler = handlerOf.get(logicalId);
      if (handler && attribute === 'Arn') return functionArn(handler);
    }
    throw new Error(`Cannot render ${JSON.stringify(value)} in a state machine definition`);
  };

  const definitions: AslDefinition[] = [];
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::StepFunctions::StateMachine') continue;
    const properties = resource.Properties as { DefinitionString?: unknown; Definition?: unknown };
    const definition =
      properties.Definition !== undefined
        ? properties.Definition
        : JSON.parse(resolve(properties.DefinitionString));
    definitions.push(definition as AslDefinition);
  }
  // Told apart by their first state (shared/pipeline/README.md names them).
  const batch = definitions.find((definition) => definition.StartAt === 'Prepare');
  const row = definitions.find((definition) => definition.StartAt === 'Submit');
  const answers = definitions.find((definition) => definition.StartAt === 'PrepareAnswers');
  if (!batch || !row || !answers) {
    throw new Error('The template does not hold all of the Batch, Row and Answers workflows');
  }

  const arnToHandler = new Map(HANDLER_NAMES.map((handler) => [functionArn(handler), handler]));
  const tasksOf = (definition: AslDefinition): Record<string, HandlerName> => {
    const tasks: Record<string, HandlerName> = {};
    for (const [stateName, state] of Object.entries(definition.States)) {
      if (state.Type !== 'Task') continue;
      // payloadResponseOnly: the function's ARN is the Resource; otherwise an integration
      // (lambda:invoke.waitForTaskToken) names it in Parameters.FunctionName.
      const target = state.Parameters?.FunctionName ?? state.Resource;
      const handler = typeof target === 'string' ? arnToHandler.get(target) : undefined;
      if (!handler) throw new Error(`Task state ${stateName} invokes no known handler (${String(target)})`);
      tasks[stateName] = handler;
    }
    return tasks;
  };

  return {
    batch,
    row,
    answers,
    taskHandlers: { batch: tasksOf(batch), row: tasksOf(row), answers: tasksOf(answers) },
    functionArns: Object.fromEntries(
      HANDLER_NAMES.map((handler) => [handler, functionArn(handler)]),
    ) as Record<HandlerName, string>,
  };
};

const findPipelineTemplate = (assembly: AssemblyLike): CloudFormationTemplate => {
  const templates = assembly.stacks.map((stack) => stack.template as CloudFormationTemplate);
  const found = templates.find((template) =>
    Object.values(template.Resources ?? {}).some(
      (resource) => resource.Type === 'AWS::StepFunctions::StateMachine',
    ),
  );
  if (!found) throw new Error('No stack in the assembly holds a state machine');
  return found;
};
