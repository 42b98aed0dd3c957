/** The types of build-commands.mjs, plain JavaScript so that bootstrap.mjs runs it before any install. */
export declare const COMMANDS: readonly string[];
/** The folder holding every command built as `<command>.mjs`, built first when a source changed. */
export declare const builtCommands: (root: string) => Promise<string>;
/** A hash of the files a build read, esbuild's version and the checkout's root; null when a file is gone. */
export declare const inputsHash: (
  root: string,
  inputs: readonly string[],
  esbuildVersion: string,
) => string | null;
