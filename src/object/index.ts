// Objects: type codes, in-place tree parsing, commit and tag headers, and (fsck.ts) the validation
// that index-pack --strict and checkout both apply before trusting a stranger's objects.
export * from './type.js';
export * from './tree.js';
export * from './commit.js';
export * from './tag.js';
export * from './fsck.js';
export * from './path-names.js';
