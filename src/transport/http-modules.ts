// node:http, https and tls, loaded when an http(s) remote is first reached. Loading them takes
// 10-15 ms, which every push, fetch and clone over ssh, git:// or a local path would otherwise pay
// as it starts (a bundled command's static imports all load before its first line runs).
import type http from 'node:http';
import type https from 'node:https';
import type tls from 'node:tls';

export interface HttpModules {
  readonly http: typeof http;
  readonly https: typeof https;
  readonly tls: typeof tls;
}

let loading: Promise<HttpModules> | null = null;

export function loadHttpModules(): Promise<HttpModules> {
  return loading ??= Promise.all([import('node:http'), import('node:https'), import('node:tls')])
    .then(([h, s, t]) => ({ http: h.default, https: s.default, tls: t.default }));
}
