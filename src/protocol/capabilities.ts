// Capabilities (gitprotocol-capabilities, gitprotocol-v2). In v0/v1 they are one space-separated
// list hidden behind a NUL on the first advertised ref, and echoed back on the client's first want
// line; in v2 each is its own pkt-line, `key[=value]`, and a command's value lists its features.
import { CorruptError, GitError } from '../core/errors.js';
import { hasControlOrSpace } from './text.js';

export interface Capability {
  readonly name: string;
  readonly value?: string;
}

// gitprotocol-v2's key grammar; v0's lower-case-only grammar is a subset, and being lenient about
// case costs nothing when clients must ignore names they do not know anyway.
const NAME = /^[A-Za-z0-9_-]+$/;

function isV2Value(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  return true;
}

/** Parses `cap cap=value ...` (v0). `where` names the input in errors. */
export function parseCapabilityList(text: string, where: string): Capability[] {
  const caps: Capability[] = [];
  for (const token of text.split(' ')) {
    if (token === '') continue;
    const eq = token.indexOf('=');
    const name = eq < 0 ? token : token.slice(0, eq);
    if (!NAME.test(name)) throw new CorruptError('protocol', `${where}: invalid capability ${JSON.stringify(token)}`);
    if (eq < 0) caps.push({ name });
    else {
      const value = token.slice(eq + 1);
      if (value.length > 0 && hasControlOrSpace(value)) throw new CorruptError('protocol', `${where}: invalid capability ${JSON.stringify(token)}`);
      caps.push({ name, value });
    }
  }
  return caps;
}

function checkCapability(cap: Capability, v2: boolean): void {
  const badValue = cap.value !== undefined && (v2 ? !isV2Value(cap.value) : (cap.value.length > 0 && hasControlOrSpace(cap.value)));
  if (!NAME.test(cap.name) || badValue) {
    throw new GitError('protocol', 'invalid-argument', `invalid capability ${JSON.stringify(formatOne(cap))}`);
  }
}

function formatOne(cap: Capability): string {
  return cap.value === undefined ? cap.name : `${cap.name}=${cap.value}`;
}

/** Formats a v0 list; values may not hold spaces there. */
export function formatCapabilityList(caps: readonly Capability[]): string {
  for (const cap of caps) checkCapability(cap, false);
  return caps.map(formatOne).join(' ');
}

/** Splits a v0 first-ref line at its NUL: the `<oid> <ref>` part and the capability text (or null). */
export function splitAtNul(line: string): { ref: string; capabilities: string | null } {
  const nul = line.indexOf('\0');
  if (nul < 0) return { ref: line, capabilities: null };
  return { ref: line.slice(0, nul), capabilities: line.slice(nul + 1) };
}

/** One v2 capability line (LF already stripped): `key` or `key=value`, where value may hold spaces. */
export function parseV2Capability(line: string, where: string): Capability {
  const eq = line.indexOf('=');
  const name = eq < 0 ? line : line.slice(0, eq);
  const value = eq < 0 ? undefined : line.slice(eq + 1);
  if (!NAME.test(name) || (value !== undefined && !isV2Value(value))) {
    throw new CorruptError('protocol', `${where}: invalid capability line ${JSON.stringify(line)}`);
  }
  return value === undefined ? { name } : { name, value };
}

/** The text of one v2 capability line, without LF. */
export function formatV2Capability(cap: Capability): string {
  checkCapability(cap, true);
  return formatOne(cap);
}

export function findCapability(caps: readonly Capability[], name: string): Capability | undefined {
  return caps.find((c) => c.name === name);
}

export function hasCapability(caps: readonly Capability[], name: string): boolean {
  return caps.some((c) => c.name === name);
}

/** Every value of a capability that may repeat (`symref=HEAD:refs/heads/main`). */
export function capabilityValues(caps: readonly Capability[], name: string): string[] {
  const values: string[] = [];
  for (const c of caps) if (c.name === name && c.value !== undefined) values.push(c.value);
  return values;
}

/** The features a v2 command advertises: `fetch=shallow wait-for-done` gives [shallow, wait-for-done]. */
export function commandFeatures(caps: readonly Capability[], command: string): string[] | null {
  const cap = findCapability(caps, command);
  if (!cap) return null;
  return cap.value === undefined ? [] : cap.value.split(' ').filter((f) => f !== '');
}
