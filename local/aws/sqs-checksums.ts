/**
 * The checksums SQS returns. The SDK recomputes MD5OfMessageBody (SendMessage,
 * SendMessageBatch) and MD5OfBody (ReceiveMessage) over the UTF-8 body and fails the call on
 * a mismatch; MD5OfMessageAttributes is returned as SQS computes it, unchecked by the JS SDK.
 */
import { createHash } from 'node:crypto';

/** A message attribute as it travels in JSON: binary values base64-encoded. */
export type MessageAttribute = { DataType: string; StringValue?: string; BinaryValue?: string };

export const md5Hex = (bytes: Buffer | string): string => createHash('md5').update(bytes).digest('hex');

/**
 * MD5OfMessageAttributes as SQS computes it: attributes sorted by name; for each, the name,
 * the data type, a transport byte (1 string, 2 binary) and the value, every variable-length
 * part prefixed by its length as a 4-byte big-endian integer.
 */
export const md5OfMessageAttributes = (attributes: Record<string, MessageAttribute>): string | null => {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return null;
  const parts: Buffer[] = [];
  const lengthPrefixed = (bytes: Buffer): void => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    parts.push(length, bytes);
  };
  for (const name of names) {
    const attribute = attributes[name]!;
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(attribute.DataType, 'utf8'));
    if (attribute.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]));
      lengthPrefixed(Buffer.from(attribute.BinaryValue, 'base64'));
    } else {
      parts.push(Buffer.from([1]));
      lengthPrefixed(Buffer.from(attribute.StringValue ?? '', 'utf8'));
    }
  }
  return md5Hex(Buffer.concat(parts));
};
