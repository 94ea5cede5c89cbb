// The hooks of a push, as git runs them (githooks(5), receive-pack.c run_receive_hook,
// run_update_hook, run_update_post_hook):
//   pre-receive   stdin "<old> <new> <ref>\n" per command; non-zero exit refuses the whole push
//   update        args <ref> <old> <new>, once per ref; non-zero exit refuses that ref
//   post-receive  stdin as pre-receive, for the refs that were updated; exit status ignored
//   post-update   args: the refs that were updated; exit status ignored
// A script is `hooks/<name>` (or under core.hooksPath) when it is executable
// (repository/hook-script.ts); it runs in the work tree (the git directory when bare) with
// GIT_DIR set, push options in GIT_PUSH_OPTION_COUNT and GIT_PUSH_OPTION_<n>, and, before the
// objects leave the quarantine, the quarantine's variables.
// Its stdout and stderr together are relayed to the client (side-band 2, which git's client shows
// as "remote: ..."). An embedder may give the same hooks as functions; both run when both exist,
// the script first.
import type { ObjectStore } from '../../odb/object-store.js';
import type { PushCommand } from '../../protocol/index.js';

/** What a hook function decides: false refuses (the ref, or for pre-receive the whole push). */
export type HookVerdict = boolean | void;

export interface HookContext {
  /** The push options the client sent (empty when it sent none). */
  readonly pushOptions: readonly string[];
  /** Objects as the hook may see them: before migration the quarantine's, then the repository's. */
  readonly odb: ObjectStore;
  /** Relays text to the client, as a hook script's output is. */
  print(text: string): void;
}

export interface ReceiveHooks {
  preReceive?(commands: readonly PushCommand[], ctx: HookContext): HookVerdict | Promise<HookVerdict>;
  update?(command: PushCommand, ctx: HookContext): HookVerdict | Promise<HookVerdict>;
  postReceive?(commands: readonly PushCommand[], ctx: HookContext): void | Promise<void>;
  postUpdate?(refs: readonly string[], ctx: HookContext): void | Promise<void>;
}

const HOOK_NAMES = { preReceive: 'pre-receive', update: 'update', postReceive: 'post-receive', postUpdate: 'post-update' } as const;
export type HookName = (typeof HOOK_NAMES)[keyof typeof HOOK_NAMES];

export function hookStdin(commands: readonly PushCommand[]): string {
  return commands.map((c) => `${c.oldOid} ${c.newOid} ${c.name}\n`).join('');
}

export function pushOptionEnv(options: readonly string[]): Record<string, string> {
  const env: Record<string, string> = { GIT_PUSH_OPTION_COUNT: String(options.length) };
  options.forEach((o, i) => { env[`GIT_PUSH_OPTION_${i}`] = o; });
  return env;
}

