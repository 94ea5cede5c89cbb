// A full collection on demand, for the commands that receive packs. (Their young-generation
// setting is made by bin/tsgit before any module loads.) Process-wide, so only the CLI uses it;
// library users keep their own settings.
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | null = null;

/**
 * A full garbage collection now. For memory that lives outside the JavaScript heap and has just
 * become garbage in one piece (index-pack's tables, once the pack is stored): the heap itself is
 * small, so V8 would otherwise keep it until much later.
 */
export function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    // The flag gives `gc` to contexts created from now on.
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}
