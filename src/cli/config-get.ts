// The reading side of `tsgit config`: --get, --get-all, --get-regexp, --list, --get-urlmatch,
// --get-color and --get-colorbool, over git's whole sequence of files or the one source a location
// option names, printed as builtin/config.c prints (show_all_config, format_config): scope and
// origin first when asked for, then the name and/or the value (typed when asked), each ended by a
// newline, or with -z by a NUL (the name then ended by a newline).
import fs from 'node:fs';
import { parseColor } from '../config/color.js';
import { type ConfigEntry, type ConfigScope } from '../config/index.js';
import { configOutsideRepository, displayName } from '../config/config.js';
import { asciiLower, parseVariableName } from '../config/edit.js';
import { fromBinary, toBinary } from '../config/parse.js';
import { posixExtended } from '../config/posix-regex.js';
import { runSync, textEntries } from '../config/read.js';
import { bestUrlMatches } from '../config/url-match.js';
import { parseBool } from '../config/values.js';
import { errnoText } from '../core/errno-text.js';
import { GitError } from '../core/errors.js';
import { OBJ_BLOB } from '../object/type.js';
import type { ConfigSetup, Locations, Source } from './config-setup.js';
import { typedValue, ValueError, type ValueType } from './config-typed.js';
import { fatal } from './context.js';
import { Output, writeAll, writeStderr } from './output.js';
import { quoteCStyle } from './quote.js';

export interface Display {
  nul: boolean;
  nameOnly: boolean;
  showOrigin: boolean;
  showScope: boolean;
  type: ValueType | null;
  defaultValue: string | null;
  fixedValue: boolean;
}

export interface ReadRequest {
  setup: ConfigSetup;
  source: Source | null;
  loc: Locations;
  /** Follow include.path: git does but in a file a location option names, unless --[no-]includes. */
  includes: boolean;
  display: Display;
  env: NodeJS.ProcessEnv;
}

/** Where an entry was read, as --show-origin and git's messages name it. */
interface Origin {
  type: 'file' | 'standard input' | 'blob' | 'command line';
  name: string;
  /** How a message names it ("file .git/config"), null for the command line. */
  where: string | null;
}

const CONFIG_INVALID_KEY = 1, CONFIG_INVALID_PATTERN = 6;

/** --list */
export function listAction(req: ReadRequest): number {
  const entries = readEntries(req, true);
  const out = new Output();
  const { display } = req;
  for (const e of entries) {
    out.text(prefixOf(req, e.scope, originOf(req, e)));
    const name = displayName(e);
    if (display.nameOnly || e.value === null) out.text(`${name}${display.nul ? '\0' : '\n'}`);
    else out.text(`${name}${display.nul ? '\n' : '='}${e.value}${display.nul ? '\0' : '\n'}`);
  }
  out.flush();
  return 0;
}

/** --get, --get-all, --get-regexp (and a bare name): git's get_value. */
export function getAction(req: ReadRequest, action: 'get' | 'get-all' | 'get-regexp', key: string, pattern: string | null): number {
  const regexp = action === 'get-regexp';
  let keyMatches: (name: string) => boolean;
  if (regexp) {
    const re = posixExtended(lowerSectionAndKey(key));
    if (!re) {
      writeStderr(`error: invalid key pattern: ${key}\n`);
      return CONFIG_INVALID_PATTERN;
    }
    keyMatches = (name) => re.test(name);
  } else {
    let canonical: string;
    try {
      canonical = fromBinary(parseVariableName(toBinary(key)).canonical);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      writeStderr(`error: ${e.message}\n`);
      return CONFIG_INVALID_KEY;
    }
    keyMatches = (name) => name === canonical;
  }
  const valueMatches = valuePattern(pattern, req.display.fixedValue);
  if (!valueMatches) return CONFIG_INVALID_PATTERN;
  const shown: string[] = [];
  for (const e of readEntries(req, false)) {
    const name = displayName(e);
    if (!keyMatches(name) || !valueMatches(e.value)) continue;
    shown.push(formatEntry(req, name, e.value, e.scope, originOf(req, e), regexp, e.line));
  }
  const { defaultValue } = req.display;
  if (shown.length === 0 && defaultValue !== null) {
    shown.push(formatEntry(req, key, defaultValue, null, { type: 'command line', name: '', where: null }, regexp, null));
  }
  const out = new Output();
  for (const text of action === 'get' ? shown.slice(-1) : shown) out.text(text);
  out.flush();
  return shown.length > 0 ? 0 : 1;
}

/** --get-urlmatch <section>[.<key>] <url>: the value (or each key's) that applies to the URL. */
export function urlmatchAction(req: ReadRequest, name: string, urlText: string): number {
  const url = normalizedUrl(urlText);
  const lower = name.toLowerCase();
  const dot = lower.indexOf('.');
  const section = dot < 0 ? lower : lower.slice(0, dot);
  const key = dot < 0 ? null : lower.slice(dot + 1);
  const best = bestUrlMatches(readEntries(req, false), section, key, url);
  const out = new Output();
  for (const k of [...best.keys()].sort()) {
    const e = best.get(k)!;
    // git prints these once the files are read, where it no longer knows their scope.
    out.text(formatEntry(req, `${section}.${k}`, e.value, 'unknown', originOf(req, e), key === null, e.line));
  }
  out.flush();
  return best.size > 0 ? 0 : 1;
}

/** --get-color <slot> [<default>]: the escape sequence of the slot's color, without a newline. */
export function colorAction(req: ReadRequest, slot: string, fallback: string | null): number {
  let color: string | null = null;
  for (const e of readEntries(req, false)) {
    if (displayName(e) !== slot) continue;
    color = parseColor(e.value ?? '');
    if (color === null) {
      writeStderr(`error: invalid color value: ${e.value}\n`);
      throw badLine(originOf(req, e), e.line);
    }
  }
  if (color === null && fallback !== null) {
    color = parseColor(fallback);
    if (color === null) {
      writeStderr(`error: invalid color value: ${fallback}\n`);
      throw fatal('unable to parse default color value');
    }
  }
  writeAll(1, Buffer.from(color ?? '', 'utf8'));
  return 0;
}

/**
 * --get-colorbool <slot> [<stdout-is-tty>]: whether to color, from the slot, else (for color.diff)
 * diff.color, else color.ui, "auto" meaning when standard output is a terminal that is not dumb.
 * Printed as true/false when stdout-is-tty is given, else the exit status.
 */
export function colorboolAction(req: ReadRequest, slot: string, ttyArg: string | null): number {
  const AUTO = 2;
  let found = -1, diff = -1, ui = -1;
  for (const e of readEntries(req, false)) {
    const name = displayName(e);
    if (name === slot) found = colorBool(name, e.value);
    else if (name === 'diff.color') diff = colorBool(name, e.value);
    else if (name === 'color.ui') ui = colorBool(name, e.value);
  }
  if (found < 0 && slot === 'color.diff') found = diff;
  if (found < 0) found = ui;
  if (found < 0) found = AUTO;
  if (found === AUTO) {
    const tty = ttyArg === null ? process.stdout.isTTY === true : typedValue('bool', 'command line', ttyArg, null, req.env) === 'true';
    const term = req.env.TERM;
    const pager = parseBool(req.env.GIT_PAGER_IN_USE ?? 'false') === true;
    found = (tty || pager) && term !== undefined && term !== 'dumb' ? 1 : 0;
  }
  if (ttyArg === null) return found ? 0 : 1;
  writeAll(1, Buffer.from(`${found ? 'true' : 'false'}\n`));
  return 0;
}

/** git_config_colorbool: never, always, auto, or a boolean (true meaning auto). */
function colorBool(name: string, value: string | null): number {
  const v = value?.toLowerCase();
  if (v === 'never') return 0;
  if (v === 'always') return 1;
  if (v === 'auto') return 2;
  return typedValue('bool', name, value, null, {}) === 'true' ? 2 : 0;
}

/**
 * The entries to look at: the source's, else git's sequence. A named file that does not exist is
 * an error for --list (`fatal`), and no entries otherwise.
 */
function readEntries(req: ReadRequest, fatalIfMissing: boolean): ConfigEntry[] {
  const { setup, source, env, includes } = req;
  const read = { env, includes, ...setup.repo ? { gitDir: setup.repo.gitDir } : {} };
  if (source === null) return setup.repo ? setup.repo.loadConfig(env, { includes }).list() : configOutsideRepository(read);
  if (source.kind === 'stdin') {
    const text = fs.readFileSync(0).toString('latin1');
    return runSync(textEntries(text, { file: '', scope: 'command', where: 'standard input' }, read));
  }
  if (source.kind === 'blob') {
    const text = blobText(req, source.name, fatalIfMissing);
    return text === null ? [] : runSync(textEntries(text, { file: source.name, scope: 'command', where: `blob ${source.name}` }, read));
  }
  let text: string;
  try {
    text = fs.readFileSync(source.path).toString('latin1');
  } catch (e) {
    if (!fatalIfMissing) return [];
    throw fatal(`unable to read config file '${setup.shownSource(source, req.loc)}': ${errnoText(e)}`);
  }
  return runSync(textEntries(text, { file: source.path, scope: source.scope }, read));
}

/** A blob's text (git_config_from_blob_ref), or null after git's error; for --list git then dies. */
function blobText(req: ReadRequest, name: string, fatalIfMissing: boolean): string | null {
  const repo = req.setup.repo!;
  let id: Uint8Array | null;
  try {
    id = repo.revs().tryResolve(name);
  } catch (e) {
    // A path the tree does not have is an error to rev-parse; to git config the name does not resolve.
    if (!(e instanceof GitError)) throw e;
    id = null;
  }
  const object = id && repo.odb.read(id);
  const error = !id ? `unable to resolve config blob '${name}'`
    : !object ? `unable to load config blob object '${name}'`
      : object.type !== OBJ_BLOB ? `reference '${name}' does not point to a blob` : null;
  if (error === null) return object!.data.toString('latin1');
  writeStderr(`error: ${error}\n`);
  if (fatalIfMissing) throw fatal('error processing config file(s)');
  return null;
}

/** One entry as format_config shows it; `showKeys` puts the name before the value. */
function formatEntry(req: ReadRequest, name: string, value: string | null, scope: ConfigScope | 'unknown' | null,
  origin: Origin, showKeys: boolean, line: number | null): string {
  const { display } = req;
  let text = prefixOf(req, scope ?? 'unknown', origin);
  if (showKeys) text += name;
  if (!display.nameOnly) {
    if (display.type !== null) {
      text += `${showKeys ? (display.nul ? '\n' : ' ') : ''}${typed(req, name, value, origin, line)}`;
    } else if (value !== null) {
      text += `${showKeys ? (display.nul ? '\n' : ' ') : ''}${value}`;
    }
  }
  return text + (display.nul ? '\0' : '\n');
}

/**
 * A value as its type, dying as git does: where the value came from a file, git's parser reports
 * the line it was on; a --default value, that it could not be formatted.
 */
function typed(req: ReadRequest, name: string, value: string | null, origin: Origin, line: number | null): string {
  try {
    return typedValue(req.display.type!, name, value, origin.where, req.env);
  } catch (e) {
    if (!(e instanceof ValueError)) throw e;
    writeStderr(`error: ${e.message}\n`);
    if (line === null) throw fatal(`failed to format default config value: ${value}`);
    throw badLine(origin, line);
  }
}

function badLine(origin: Origin, line: number): GitError {
  return fatal(origin.where === null ? 'unable to parse command-line config' : `bad config line ${line} in ${origin.where}`);
}

/** --show-scope's and --show-origin's columns. */
function prefixOf(req: ReadRequest, scope: ConfigScope | 'unknown', origin: Origin): string {
  const { display } = req;
  const end = display.nul ? '\0' : '\t';
  let text = display.showScope ? `${scope}${end}` : '';
  if (display.showOrigin) {
    const name = display.nul ? origin.name : quoteCStyle(Buffer.from(origin.name, 'utf8')).toString('latin1');
    text += `${origin.type}:${name}${end}`;
  }
  return text;
}

function originOf(req: ReadRequest, e: ConfigEntry): Origin {
  const { source, setup } = req;
  if (source?.kind === 'stdin') return { type: 'standard input', name: '', where: 'standard input' };
  if (source?.kind === 'blob') return { type: 'blob', name: source.name, where: `blob ${source.name}` };
  if (source === null && e.scope === 'command') return { type: 'command line', name: '', where: null };
  const name = source?.kind === 'file' && e.file === source.path ? setup.shownSource(source, req.loc) : setup.shown(e.file);
  return { type: 'file', name, where: `file ${name}` };
}

/**
 * git's naive lower-casing of a name pattern (--get-regexp): up to its first dot and after its
 * last, as if those were the section and the key.
 */
function lowerSectionAndKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first < 0) return asciiLower(key);
  return asciiLower(key.slice(0, first)) + key.slice(first, last + 1) + asciiLower(key.slice(last + 1));
}

/** A value-pattern: a string --fixed-value compares with, or a regular expression `!` may negate. */
export type ValuePattern = { fixed: string } | { re: RegExp; negate: boolean };

/** The value-pattern of `pattern`; null (after git's error) when the expression is invalid, exit status 6. */
export function compileValuePattern(pattern: string, fixed: boolean): ValuePattern | null {
  if (fixed) return { fixed: pattern };
  const negate = pattern.startsWith('!');
  const source = negate ? pattern.slice(1) : pattern;
  const re = posixExtended(source);
  if (!re) {
    writeStderr(`error: invalid pattern: ${source}\n`);
    return null;
  }
  return { re, negate };
}

/** The test a value-pattern makes when reading: a key without `=` is tested as ''. */
function valuePattern(pattern: string | null, fixed: boolean): ((value: string | null) => boolean) | null {
  if (pattern === null) return () => true;
  const p = compileValuePattern(pattern, fixed);
  if (!p) return null;
  if ('fixed' in p) return (value) => (value ?? '') === p.fixed;
  return (value) => p.negate !== p.re.test(value ?? '');
}

/** git's url_normalize, as far as `new URL` does it; dies with git's message where it would. */
function normalizedUrl(text: string): URL {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) throw fatal("invalid URL scheme name or missing '://' suffix");
  try {
    return new URL(text);
  } catch {
    throw fatal('invalid characters in host name');
  }
}
