// Preloaded with `node --import`: appends the URL of every module the ESM loader loads to the
// file named by CCB_IMPORT_LOG (tests/unit/cli/startup.test.ts: what a command loads).
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.CCB_IMPORT_LOG) appendFileSync(process.env.CCB_IMPORT_LOG, url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
