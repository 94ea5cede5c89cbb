// A .gitmodules blob as fsck reads it: in git's config syntax (parse.ts), every variable judged by
// object/gitmodules.ts. A blob that does not parse is reported as gitmodulesParse, which git
// keeps at level info: it is shown, and refused only when configured so.
import { CorruptError } from '../core/errors.js';
import { FsckReport, type FsckOptions, type FsckProblem } from '../object/fsck.js';
import { checkGitmodulesVariables, type GitmodulesVariable } from '../object/gitmodules.js';
import { parseConfig } from './parse.js';

export function checkGitmodulesBlob(content: Uint8Array, options: FsckOptions = {}): FsckProblem[] {
  let parsed;
  try {
    parsed = parseConfig(Buffer.from(content.buffer, content.byteOffset, content.length).toString('latin1'), '.gitmodules');
  } catch (e) {
    if (!(e instanceof CorruptError)) throw e;
    const report = new FsckReport(options);
    report.add('gitmodulesParse', 'could not parse gitmodules blob');
    return report.problems;
  }
  const utf8 = (s: string) => Buffer.from(s, 'latin1').toString('utf8');
  const variables: GitmodulesVariable[] = parsed.entries.map((e) => {
    const section = e.sectionIndex >= 0 ? parsed.sections[e.sectionIndex]! : null;
    return {
      section: section?.section ?? '',
      subsection: section?.subsection === null || section === null ? null : utf8(section.subsection),
      key: e.key,
      value: e.value === null ? null : utf8(e.value),
    };
  });
  return checkGitmodulesVariables(variables, options);
}
