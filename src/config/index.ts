// Config files: parse.ts turns a file's bytes into sections and entries (with the offsets an edit
// needs), values.ts reads booleans and integers the way git does, edit.ts rewrites one variable in
// a file's text leaving the rest untouched, and config.ts ties them together: Config.loadSync reads
// <gitDir>/config (plus includes, and optionally system and global files), answers get/getAll/
// getBool/getInt, and save() writes edits back through config.lock. init.ts gives the text
// `git init` writes.
export { Config, type ConfigEntry, type ConfigLoadOptions } from './config.js';
export { initialConfigText, type InitialConfigOptions } from './init.js';
export { parseBool, parseSigned } from './values.js';
