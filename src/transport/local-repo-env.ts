// git's local_repo_env (environment.c, git 2.39): the variables that say where this repository's
// parts are and how it is configured. git removes them from the environment of the upload-pack or
// receive-pack it starts for a local or ssh remote (connect.c), so the far end reads its own
// repository and its own configuration: `git -c uploadpack.allowAnySHA1InWant=true fetch
// file://...` does not reach the server, and GIT_DIR or GIT_OBJECT_DIRECTORY set for the client
// does not redirect the server to the client's objects.
export const LOCAL_REPO_ENV: readonly string[] = [
  'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_CONFIG', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT',
  'GIT_OBJECT_DIRECTORY', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_IMPLICIT_WORK_TREE', 'GIT_GRAFT_FILE',
  'GIT_INDEX_FILE', 'GIT_NO_REPLACE_OBJECTS', 'GIT_REPLACE_REF_BASE', 'GIT_PREFIX', 'GIT_SUPER_PREFIX',
  'GIT_SHALLOW_FILE', 'GIT_COMMON_DIR',
];

/** A copy of `env` without git's repository-local variables. */
export function withoutLocalRepoEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of LOCAL_REPO_ENV) delete out[name];
  return out;
}
