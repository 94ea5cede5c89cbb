// Types of command-entry.mjs, for the TypeScript that imports it (test/cli-batch.ts).
export function commandName(args: readonly string[]): string | null;
export function entryFor(name: string | null): string;
