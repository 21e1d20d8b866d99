/** Which Chromium the project drives, and how Playwright must launch it here. */

/** Debian's chromium package (never a browser Playwright downloads). */
export const CHROMIUM_PATH = '/usr/lib/chromium/chromium';

/**
 * Playwright's own SIGINT/SIGTERM/SIGHUP handlers close every browser and (on SIGINT) exit
 * the process with 130 at once, behind the run's back: the run's cleanup stack was left
 * undone. Signals are ccbrowse's (util/interrupt.ts); the stack closes the browser.
 */
export const SIGNALS_ARE_OURS = { handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false } as const;
