// The config file `git init` writes (builtin/init-db.c create_default_files), for init and clone.

export interface InitialConfigOptions {
  bare: boolean;
  /** Whether the filesystem keeps the executable bit; git probes this, tsgit's caller decides. */
  fileMode?: boolean;
}

export function initialConfigText(opts: InitialConfigOptions): string {
  return '[core]\n'
    + '\trepositoryformatversion = 0\n'
    + `\tfilemode = ${opts.fileMode ?? true}\n`
    + `\tbare = ${opts.bare}\n`
    // git only turns reflogs on by default in repositories that have a work tree.
    + (opts.bare ? '' : '\tlogallrefupdates = true\n');
}
