/**
 * Flags of the project's own scripts (bench/, src/train/scripts/), which are not commands of the
 * CLI and so do not use commander: `--name value`, taken out of `args` so that what is left is
 * the positional arguments.
 */
export function takeFlag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
}

/** A switch without a value (`--name`): true when given, taken out of `args`. */
export function takeSwitch(args: string[], name: string): boolean {
  const i = args.indexOf(name);
  if (i < 0) return false;
  args.splice(i, 1);
  return true;
}

/** A flag the script cannot run without: missing, it says where the usage is and exits 2. */
export function requireFlag(args: string[], name: string, usageIn: string): string {
  const v = takeFlag(args, name);
  if (v) return v;
  console.error(`missing ${name} (see the header of ${usageIn})`);
  process.exit(2);
}

/** A comma-separated flag as a list (absent: empty). */
export const takeList = (args: string[], name: string): string[] => (takeFlag(args, name) ?? '').split(',').filter(Boolean);
