/**
 * SQS errors in the shapes the SDK maps to its exception classes. SQS speaks JSON but stays
 * compatible with its old query protocol: the SDK reads the code from the
 * `x-amzn-query-error: <code>;Sender` header first and finds the class whose
 * `awsQueryError` trait carries that code (AWS.SimpleQueueService.NonExistentQueue →
 * QueueDoesNotExist). A code with no modelled shape (InvalidParameterValue) surfaces as
 * SQSServiceException named after the code, as against SQS.
 */
import { AwsError } from './errors.js';

export const sqsErrors = {
  queueDoesNotExist: () =>
    new AwsError('com.amazonaws.sqs#QueueDoesNotExist', 'The specified queue does not exist.', {
      queryCode: 'AWS.SimpleQueueService.NonExistentQueue',
    }),
  queueNameExists: (attribute: string) =>
    new AwsError(
      'com.amazonaws.sqs#QueueNameExists',
      `A queue already exists with the same name and a different value for attribute ${attribute}`,
      { queryCode: 'QueueAlreadyExists' },
    ),
  invalidAttributeName: (name: string) =>
    new AwsError('com.amazonaws.sqs#InvalidAttributeName', `Unknown Attribute ${name}.`, {
      queryCode: 'InvalidAttributeName',
    }),
  invalidAttributeValue: (name: string, reason: string) =>
    new AwsError(
      'com.amazonaws.sqs#InvalidAttributeValue',
      `Invalid value for the parameter ${name}. ${reason}`,
      {
        queryCode: 'InvalidAttributeValue',
      },
    ),
  // Generic in SQS, no modelled shape: the SDK raises SQSServiceException named by the query code.
  invalidParameterValue: (message: string) =>
    new AwsError('InvalidParameterValue', message, { queryCode: 'InvalidParameterValue' }),
  missingParameter: (member: string) =>
    new AwsError('MissingParameter', `The request must contain the parameter ${member}.`, {
      queryCode: 'MissingParameter',
    }),
  receiptHandleIsInvalid: (handle: string) =>
    new AwsError(
      'com.amazonaws.sqs#ReceiptHandleIsInvalid',
      `The input receipt handle "${handle}" is not a valid receipt handle.`,
      { queryCode: 'ReceiptHandleIsInvalid', status: 404 },
    ),
  messageNotInflight: () =>
    new AwsError('com.amazonaws.sqs#MessageNotInflight', 'The message referred to is not in flight.', {
      queryCode: 'AWS.SimpleQueueService.MessageNotInflight',
    }),
  invalidMessageContents: (reason: string) =>
    new AwsError('com.amazonaws.sqs#InvalidMessageContents', reason, { queryCode: 'InvalidMessageContents' }),
  unsupportedOperation: (message: string) =>
    new AwsError('com.amazonaws.sqs#UnsupportedOperation', message, {
      queryCode: 'AWS.SimpleQueueService.UnsupportedOperation',
    }),
};
