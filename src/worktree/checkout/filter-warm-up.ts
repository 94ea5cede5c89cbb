// Filter processes a checkout is about to need, started before the tree is planned, so that a
// filter's own start (git-lfs runs a dozen git commands before its handshake) overlaps the
// planning instead of following it. Only on evidence: the root .gitattributes of the tree names
// the driver (`filter=<name>`), so a git-lfs installed globally is not started for a repository
// that does not use it. A process started for nothing is closed with the checkout.
import { MODE_BLOB, MODE_EXEC, TreeCursor } from '../../object/tree.js';
import { OBJ_BLOB, OBJ_TREE } from '../../object/type.js';
import type { ObjectStore } from '../../odb/object-store.js';
import { isAttributesName } from '../attributes/file-name.js';
import { processCommand, type FilterDriver } from '../filter/driver.js';

/** The process commands of drivers the root .gitattributes of `treeId` names. */
export function processesNamedAtRoot(odb: ObjectStore, treeId: Uint8Array, drivers: ReadonlyMap<string, FilterDriver>): string[] {
  const candidates = [...drivers.values()].filter(d => processCommand(d) !== null);
  if (!candidates.length) return [];
  const tree = odb.mustRead(treeId, 0, OBJ_TREE).data;
  const cur = new TreeCursor(tree);
  while (cur.next()) {
    if (!isAttributesName(tree, cur.nameStart, cur.nameEnd)) continue;
    if (cur.mode !== MODE_BLOB && cur.mode !== MODE_EXEC) return [];
    const text = odb.mustRead(tree, cur.oidOffset, OBJ_BLOB).data.toString('latin1');
    return [...new Set(candidates.filter(d => text.includes(`filter=${d.name}`)).map(d => processCommand(d)!))];
  }
  return [];
}
