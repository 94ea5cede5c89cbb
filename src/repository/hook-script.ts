// Hook scripts as git finds and runs them (githooks(5), hook.c find_hook, run-command.c): the
// script is `<hooksDir>/<name>`, the hooks directory being core.hooksPath (relative to where hooks
// run) or `$GIT_COMMON_DIR/hooks` (shared by all work trees), and it runs only when it is an
// executable file; one that is there but not executable is passed over with git's hint.
// receive-pack's hooks, push's pre-push and checkout's and clone's post-checkout run through here.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';

export interface ScriptHookSettings {
  /** The repository's common directory (Repository.commonDir), whose hooks/ is the default. */
  commonDir: string;
  /** Where hooks run: the work tree, or the git directory of a bare repository. */
  cwd: string;
  /** core.hooksPath, or null for <commonDir>/hooks. */
  hooksPath: string | null;
  env: NodeJS.ProcessEnv;
  /**
   * GIT_DIR as the script gets it, or null for the environment as it is: git's receive-pack and
   * clone have set it, checkout and push have not (the hook finds the repository from where it runs).
   */
  gitDirEnv: string | null;
}

/** The settings of a hook that a repository's own command runs (pre-push, post-checkout). */
export function commandHookSettings(commonDir: string, workTree: string | null, config: Config, env: NodeJS.ProcessEnv,
  gitDirEnv: string | null = null): ScriptHookSettings {
  return { commonDir, cwd: workTree ?? commonDir, hooksPath: config.get('core', null, 'hookspath') ?? null, env, gitDirEnv };
}

/** The executable script for `name`, or null; a present but not executable one is reported, as git's advice does. */
export function findHook(settings: ScriptHookSettings, name: string, warn: (text: string) => void): string | null {
  const dir = settings.hooksPath !== null ? path.resolve(settings.cwd, settings.hooksPath) : path.join(settings.commonDir, 'hooks');
  const file = path.join(dir, name);
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    if (fs.existsSync(file)) {
      warn(`hint: The '${file}' hook was ignored because it's not set as executable.\n`);
    }
    return null;
  }
}

export interface ScriptRun {
  args: readonly string[];
  stdin: string | null;
  env: Record<string, string>;
}

/**
 * Runs a hook script; resolves with its exit status (a signal counts as failure) once it and its
 * output are done. `relay` receives its stdout (1) and stderr (2) as they come.
 */
export function runHookScript(file: string, settings: ScriptHookSettings, run: ScriptRun,
  relay: (chunk: Buffer, stream: 1 | 2) => void): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...settings.env, ...run.env };
  if (settings.gitDirEnv !== null) env.GIT_DIR = settings.gitDirEnv;
  return new Promise((resolve) => {
    const child = spawn(file, [...run.args], {
      cwd: settings.cwd,
      env,
      stdio: [run.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => relay(chunk, 1));
    child.stderr!.on('data', (chunk: Buffer) => relay(chunk, 2));
    if (child.stdin) {
      // A hook need not read its input; one that exits first makes the write fail, harmlessly.
      child.stdin.on('error', () => {});
      child.stdin.end(run.stdin);
    }
    child.on('error', (e) => {
      relay(Buffer.from(`error: cannot run ${file}: ${e.message}\n`), 2);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(signal ? 128 : code ?? 1));
  });
}
