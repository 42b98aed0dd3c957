/**
 * What every Lambda composition root shares (runtime.ts for the pipeline, console-runtime.ts for
 * the console): a variable the stack must have set, and a thing built once per container.
 */
import type { EnvName } from './catalogue.js';

export const required = (name: EnvName): string => {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
};

export const once = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};
