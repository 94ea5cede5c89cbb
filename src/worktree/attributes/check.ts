// Looking up a path's attributes the way git's attr.c fill() does: frames from the most specific
// (info/attributes, then the deepest .gitattributes up to the root one, then the global and system
// files, then git's built-in macros), rules in each frame from last to first, and within a rule
// states from last to first; the first decision for an attribute wins, and a macro decided as set
// expands into its own states.
import { matchesPathPattern, PATTERN_MUSTBEDIR } from '../path-pattern.js';
import { parseAttributes, type AttrMacro, type AttrRule, type AttrState, type AttrValue } from './rules.js';

/** The rules of one attributes file, matched relative to `base` (a directory, '' for the root). */
export interface AttrFrame {
  base: Uint8Array;
  rules: AttrRule[];
  /** What git prints as it reads the file (rules.ts ParsedAttributes.warnings). */
  warnings: string[];
}

const BUILTIN = parseAttributes(Buffer.from('[attr]binary -diff -merge -text\n'), '[builtin]', true);

/** An attributes file read outside the tree, with its name as git's messages about its lines give it. */
export interface AttributesFile {
  data: Uint8Array;
  name: string;
}

export interface AttributeSources {
  /** info/attributes (info-file.ts), named as git names it. */
  info?: AttributesFile | null;
  /** The root .gitattributes of the tree being checked out. */
  root?: Uint8Array | null;
  /** core.attributesFile (or its XDG default). */
  global?: Uint8Array | null;
  /** /etc/gitattributes. */
  system?: Uint8Array | null;
  /** core.ignoreCase: patterns match regardless of case. */
  ignoreCase?: boolean;
  /** The global file's name as git's messages give it (it has no fixed one). */
  globalName?: string;
}

export class AttributeChecker {
  /** What git prints reading every file parsed here, in the order parsed. */
  readonly warnings: string[] = [];
  /**
   * What git prints reading the files outside the subdirectories (system, global, root
   * .gitattributes, info/attributes: git's bootstrap order), on its first lookup.
   */
  readonly topWarnings: string[] = [];
  private readonly macros = new Map<string, AttrState[]>();
  private readonly top: AttrFrame[];
  private readonly bottom: AttrFrame[];
  readonly rootFrame: AttrFrame | null;
  private readonly ignoreCase: boolean;

  constructor(sources: AttributeSources) {
    this.ignoreCase = sources.ignoreCase ?? false;
    const root = new Uint8Array(0);
    const frame = (content: Uint8Array | null | undefined, source: string): AttrFrame | null => {
      if (!content) return null;
      const parsed = parseAttributes(content, source, true);
      this.warnings.push(...parsed.warnings);
      this.topWarnings.push(...parsed.warnings);
      this.defineMacros(parsed.macros);
      return { base: root, rules: parsed.rules, warnings: parsed.warnings };
    };
    // Macros: the last definition in the most specific top-level file wins, so define from the
    // least specific up and let later definitions replace earlier ones.
    this.defineMacros(BUILTIN.macros);
    const system = frame(sources.system, '/etc/gitattributes');
    const global = frame(sources.global, sources.globalName ?? 'core.attributesFile');
    this.rootFrame = frame(sources.root, '.gitattributes');
    const info = sources.info ? frame(sources.info.data, sources.info.name) : null;
    this.top = info ? [info] : [];
    this.bottom = [global, system].filter((f): f is AttrFrame => f !== null);
  }

  /** Whether any rule exists outside the work tree's subdirectories (a quick "nothing to do"). */
  get hasTopLevelRules(): boolean {
    return this.top.length + this.bottom.length > 0 || (this.rootFrame?.rules.length ?? 0) > 0;
  }

  private defineMacros(macros: AttrMacro[]): void {
    for (const m of macros) this.macros.set(m.name, m.states);
  }

  /** Parses a .gitattributes below the root (no macros allowed there, as in git). */
  frameFor(base: Uint8Array, content: Uint8Array, source: string): AttrFrame {
    const parsed = parseAttributes(content, source, false);
    this.warnings.push(...parsed.warnings);
    return { base, rules: parsed.rules, warnings: parsed.warnings };
  }

  /**
   * The values of `names` for the file at `path`; `dirFrames` are the .gitattributes frames of
   * its directories, deepest first, ending with the root's. Undecided attributes are undefined;
   * `!name` gives null.
   */
  check(path: Uint8Array, dirFrames: readonly AttrFrame[], names: readonly string[]): Map<string, AttrValue> {
    const decided = new Map<string, AttrValue>();
    const wanted = names.length;
    let found = 0;
    const fillOne = (states: AttrState[]): void => {
      for (let i = states.length - 1; i >= 0; i--) {
        const s = states[i]!;
        if (decided.has(s.name)) continue;
        decided.set(s.name, s.value);
        if (names.includes(s.name)) found++;
        const macro = this.macros.get(s.name);
        if (macro && s.value === true) fillOne(macro);
      }
    };
    const basename = path.lastIndexOf(0x2f) + 1;
    const frames = [this.top, dirFrames, this.bottom];
    for (const list of frames) {
      for (const frame of list) {
        for (let r = frame.rules.length - 1; r >= 0; r--) {
          const rule = frame.rules[r]!;
          if (this.matches(path, basename, rule, frame.base)) fillOne(rule.states);
          // Once every wanted attribute is decided nothing later can change them.
          if (found === wanted) return decided;
        }
      }
    }
    return decided;
  }

  private matches(path: Uint8Array, basename: number, rule: AttrRule, base: Uint8Array): boolean {
    if (rule.flags & PATTERN_MUSTBEDIR) return false; // only files are looked up
    return matchesPathPattern(path, basename, rule, base, this.ignoreCase);
  }
}
