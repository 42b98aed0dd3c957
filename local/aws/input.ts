/**
 * Readers for the members of a JSON request body. Each service passes the error it raises
 * for a bad or missing member, so a wrong call fails the way AWS would fail it instead of
 * somewhere deeper with a TypeError.
 */
import type { AwsError } from './errors.js';

export type JsonObject = Record<string, unknown>;

export type InputErrors = {
  missing: (member: string) => AwsError;
  invalid: (member: string, reason: string) => AwsError;
};

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export type InputReader = ReturnType<typeof readInput>;

export const readInput = (input: JsonObject, errors: InputErrors) => {
  const present = (member: string): boolean => input[member] !== undefined && input[member] !== null;

  const optionalString = (member: string): string | undefined => {
    if (!present(member)) return undefined;
    const value = input[member];
    if (typeof value !== 'string') throw errors.invalid(member, 'must be a string');
    return value;
  };

  const string = (member: string): string => {
    const value = optionalString(member);
    if (value === undefined) throw errors.missing(member);
    return value;
  };

  const optionalInteger = (member: string, min: number, max: number): number | undefined => {
    if (!present(member)) return undefined;
    const value = input[member];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw errors.invalid(member, `must be an integer from ${min} to ${max}`);
    }
    return value;
  };

  const optionalStringList = (member: string): string[] | undefined => {
    if (!present(member)) return undefined;
    const value = input[member];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      throw errors.invalid(member, 'must be a list of strings');
    }
    return value as string[];
  };

  const optionalObject = (member: string): JsonObject | undefined => {
    if (!present(member)) return undefined;
    const value = input[member];
    if (!isJsonObject(value)) throw errors.invalid(member, 'must be an object');
    return value;
  };

  const optionalStringMap = (member: string): Record<string, string> | undefined => {
    const value = optionalObject(member);
    if (value === undefined) return undefined;
    if (Object.values(value).some((item) => typeof item !== 'string')) {
      throw errors.invalid(member, 'must map names to strings');
    }
    return value as Record<string, string>;
  };

  const list = (member: string): unknown[] => {
    if (!present(member)) throw errors.missing(member);
    const value = input[member];
    if (!Array.isArray(value)) throw errors.invalid(member, 'must be a list');
    return value;
  };

  return {
    present,
    string,
    optionalString,
    optionalInteger,
    optionalStringList,
    optionalObject,
    optionalStringMap,
    list,
  };
};
