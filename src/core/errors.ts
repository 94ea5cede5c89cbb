// One error type for the whole library. `code` is stable (callers branch on it); `layer` says which
// part of tsgit noticed; the message names the input (file, offset, ref, path) that was wrong.

export type ErrorLayer =
  | 'core' | 'object' | 'odb' | 'pack' | 'refs' | 'config' | 'walk' | 'protocol' | 'transport'
  | 'server' | 'client' | 'worktree' | 'cli';

export class GitError extends Error {
  readonly code: string;
  readonly layer: ErrorLayer;
  constructor(layer: ErrorLayer, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GitError';
    this.code = code;
    this.layer = layer;
  }
}

/** Input that breaks a format rule: a corrupt pack, a bad object, a malformed pkt-line. */
export class CorruptError extends GitError {
  constructor(layer: ErrorLayer, message: string, options?: { cause?: unknown }) {
    super(layer, 'corrupt', message, options);
    this.name = 'CorruptError';
  }
}

/** An object, ref or revision that does not exist. */
export class NotFoundError extends GitError {
  constructor(layer: ErrorLayer, message: string, options?: { cause?: unknown }) {
    super(layer, 'not-found', message, options);
    this.name = 'NotFoundError';
  }
}

/** A command line that does not parse; the CLI exits 129 for these, as git does. */
export class UsageError extends GitError {
  constructor(message: string) {
    super('cli', 'usage', message);
    this.name = 'UsageError';
  }
}

/** An option's value that is wrong or missing, which git's parse-options reports alone: no usage after it. */
export class OptionError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'OptionError';
  }
}

/**
 * What a command dies with, after "fatal: ": a GitError's message whole; anything else (a bug, an
 * fs error nobody translated) in its first line, as git dies in one.
 */
export function fatalText(e: unknown): string {
  if (e instanceof GitError) return e.message;
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

/** An error as plain data, to cross a thread boundary (postMessage, or JSON in shared memory). */
export interface ErrorData {
  message: string;
  code: string;
  layer: ErrorLayer;
}

/** `e` as data. Anything but a GitError is a bug: it goes as an 'internal' error of `layer`, with its stack. */
export function errorData(e: unknown, layer: ErrorLayer): ErrorData {
  if (e instanceof GitError) return { message: e.message, code: e.code, layer: e.layer };
  return { message: e instanceof Error ? e.stack ?? e.message : String(e), code: 'internal', layer };
}

/** The error errorData() described, rebuilt as its own class. */
export function errorFromData(d: ErrorData): GitError {
  if (d.code === 'corrupt') return new CorruptError(d.layer, d.message);
  if (d.code === 'not-found') return new NotFoundError(d.layer, d.message);
  return new GitError(d.layer, d.code, d.message);
}
