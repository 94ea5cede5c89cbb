// Config files: parse.ts turns a file's bytes into sections, entries and the events a writer
// needs, values.ts reads booleans and integers the way git does, read.ts reads files (includes
// expanded) into entries, edit.ts writes one variable into a file's text and rename-section.ts
// renames or removes a section, as git does, leaving the rest untouched; write-file.ts does it
// under config.lock. config.ts ties them together: Config.loadSync reads <gitDir>/config (plus
// includes, and optionally system and global files), answers get/getAll/getBool/getInt, and
// save() writes edits back. init.ts gives the text `git init` writes.
export { Config, type ConfigEntry, type ConfigLoadOptions, type ConfigScope } from './config.js';
export { configuredInitialBranch, DEFAULT_INITIAL_BRANCH, initialConfigText, type InitialConfigOptions } from './init.js';
export { parseBool, parseSigned } from './values.js';
