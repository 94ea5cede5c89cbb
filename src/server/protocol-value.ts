// What a client may pass on as GIT_PROTOCOL (the Git-Protocol header, git://'s extra parameters).

/** A GIT_PROTOCOL value from a client: key=value pairs joined by ':', nothing else. */
export function sanitizeProtocol(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const parts = value.split(':').filter(p => /^[A-Za-z0-9._-]+(=[A-Za-z0-9._-]*)?$/.test(p));
  return parts.length ? parts.join(':') : undefined;
}
