// Why a pack or its index cannot be used, in git's words. git checks a pack when it first opens it
// (packfile.c: check_packed_git_idx, open_packed_git_1) and prints what is wrong as an `error:`
// line naming the file as it reaches it (`.git/objects/pack/pack-<hash>.pack` from the top of a
// work tree); the error carries the sentence with the file left open, so the object database can
// name the file as git would while the library's own message names it by its full path.
import { CorruptError } from '../core/errors.js';

export class PackOpenError extends CorruptError {
  /**
   * `file`: the .pack or .idx at fault, as opened; `describe`: git's sentence for it, given the
   * file's name as it should be shown.
   */
  constructor(readonly file: string, readonly describe: (shown: string) => string) {
    super('pack', describe(file));
    this.name = 'PackOpenError';
  }
}
