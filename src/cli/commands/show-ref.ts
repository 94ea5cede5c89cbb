// tsgit show-ref [--head] [-d] [--tags] [--heads] [-s] [-q] [--verify] [<pattern>...]: git's listing,
// including its refusal of a ref that points at a missing object.
import { unknownOption } from '../parse-options.js';
import { fromHex, toHex } from '../../core/oid.js';
import { fatal, type CommandContext } from '../context.js';
import { Output } from '../output.js';
import type { CommandHelp } from '../help.js';

export const help: CommandHelp = {
  summary: 'List references in a local repository',
  synopsis: ['[--head] [-d | --dereference] [-s | --hash] [-q | --quiet] [--tags] [--heads] [<pattern>...]', '--verify [-q] [-d] [-s] <ref>...'],
  options: [
    ['--tags', 'only show tags (can be combined with heads)'],
    ['--heads', 'only show heads (can be combined with tags)'],
    ['--verify', 'stricter reference checking, requires exact ref path'],
    ['--head', 'show the HEAD reference, even if it would be filtered out'],
    ['-d, --dereference', 'dereference tags into object IDs'],
    ['-s, --hash', 'only show SHA1 hash'],
    ['-q, --quiet', 'do not print results to stdout (useful with --verify)'],
  ],
};

export default function showRef(ctx: CommandContext, args: string[]): number {
  let head = false, deref = false, tags = false, heads = false, hashOnly = false, quiet = false, verify = false;
  const patterns: string[] = [];
  for (const a of args) {
    if (a === '--head') head = true;
    else if (a === '-d' || a === '--dereference') deref = true;
    else if (a === '--tags') tags = true;
    else if (a === '--heads') heads = true;
    else if (a === '-s' || a === '--hash') hashOnly = true;
    else if (a === '-q' || a === '--quiet') quiet = true;
    else if (a === '--verify') verify = true;
    else if (a.startsWith('-')) throw unknownOption(a);
    else patterns.push(a);
  }
  const repo = ctx.repository();
  const out = new Output();
  const revs = repo.revs();
  let found = 0;
  const show = (name: string, hex: string, peeled?: string | null) => {
    const id = fromHex(hex)!;
    if (!repo.odb.has(id)) {
      out.flush();
      throw fatal(`git show-ref: bad ref ${name} (${hex})`);
    }
    found++;
    if (quiet) return;
    out.text(hashOnly ? `${hex}\n` : `${hex} ${name}\n`);
    if (!deref) return;
    // packed-refs may already say what the ref peels to, or that it does not peel.
    const p = peeled === undefined ? toHex(revs.peelTags(id)) : peeled;
    if (p !== null && p !== hex) out.text(hashOnly ? `${p}\n` : `${p} ${name}^{}\n`);
  };
  if (verify) {
    for (const name of patterns) {
      const r = (name === 'HEAD' || name.startsWith('refs/')) ? repo.refs.resolve(name) : null;
      if (!r) {
        if (!quiet) throw fatal(`'${name}' - not a valid ref`);
        out.flush();
        return 1;
      }
      show(name, r.oid);
    }
    out.flush();
    return 0;
  }
  if (head) {
    const r = repo.refs.resolve('HEAD');
    if (r) show('HEAD', r.oid);
  }
  // git show-ref lists broken refs too, and then dies on them.
  for (const ref of repo.refs.list('refs/', { includeBroken: true })) {
    if (tags || heads) {
      if (!((tags && ref.name.startsWith('refs/tags/')) || (heads && ref.name.startsWith('refs/heads/')))) continue;
    }
    if (patterns.length && !patterns.some(p => matches(ref.name, p))) continue;
    show(ref.name, ref.oid, ref.peeled);
  }
  out.flush();
  return found ? 0 : 1;
}

/** git show-ref's pattern rule: the pattern equals the name or a trailing run of its components. */
function matches(name: string, pattern: string): boolean {
  if (name === pattern) return true;
  return name.endsWith('/' + pattern);
}
