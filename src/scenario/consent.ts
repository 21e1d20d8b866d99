/**
 * Consent dialogs and pop-ups: clicked through when present, never a failure when absent.
 */
import type { Frame, Locator, Page } from 'playwright-core';
import { errText, sleep, visibleNow } from './page-util.js';

/**
 * "Accept all" in many languages: unambiguous, clicked wherever it appears. Anchored, so
 * "Do not accept all" or a paragraph mentioning it never matches.
 */
const ACCEPT_ALL = new RegExp(
  '^\\s*(' +
    [
      'accept all', 'accept all cookies', 'accept cookies', 'allow all', 'allow all cookies', 'agree to all', 'accept and continue',
      'alle akzeptieren', 'alle cookies akzeptieren', 'alle zulassen', 'allen zustimmen', 'akzeptieren und weiter',
      'tout accepter', 'accepter tout', 'accepter et continuer', 'accepter et fermer', 'accepter les cookies',
      'aceptar todo', 'aceptar todas', 'aceptar todas las cookies', 'aceptar cookies', 'aceptar y continuar',
      'accetta tutto', 'accetta tutti', 'accetta tutti i cookie', 'accetta e continua',
      'alles accepteren', 'alle cookies accepteren', 'aceitar tudo', 'aceitar todos', 'aceitar todos os cookies',
      'zaakceptuj wszystko', 'akceptuj wszystkie', 'godkänn alla', 'acceptera alla', 'accepter alle', 'tillad alle',
      'godta alle', 'hyväksy kaikki', 'přijmout vše', 'prijať všetko', 'összes elfogadása', 'elfogadom mindet',
      'tümünü kabul et', 'принять все', 'прийняти все', 'すべて同意する', 'すべて受け入れる', '모두 동의', '全部接受', '接受全部', '同意全部',
    ].join('|') +
    ')\\s*[.!]?\\s*$',
  'i',
);

/** A plain "Accept"/"OK": only clicked inside something that looks like a consent dialog. */
const ACCEPT = new RegExp(
  '^\\s*(' +
    [
      'accept', 'i accept', 'agree', 'i agree', 'yes,? i agree', 'ok', 'okay', 'got it', 'allow', 'allow cookies',
      'akzeptieren', 'zustimmen', 'einverstanden', 'ich stimme zu', 'annehmen', 'accepter', "j'accepte", 'j’accepte',
      'aceptar', 'acepto', 'accetta', 'accetto', 'accepteren', 'akkoord', 'aceitar', 'aceito', 'concordo',
      'akceptuję', 'zgadzam się', 'godkänn', 'acceptera', 'tillad', 'godta', 'hyväksy', 'souhlasím', 'přijmout',
      'kabul et', 'kabul ediyorum', 'принять', 'согласен', '同意する', '同意', '동의',
    ].join('|') +
    ')\\s*[.!]?\\s*$',
  'i',
);

/** Containers consent banners live in (the plain ACCEPT pattern is only tried inside them). */
const CONSENT_CONTAINERS = [
  '[role="dialog"]', '[role="alertdialog"]', '[aria-modal="true"]', '[id*="cookie" i]', '[class*="cookie" i]',
  '[id*="consent" i]', '[class*="consent" i]', '[id*="gdpr" i]', '[class*="gdpr" i]', '[id*="cmp" i]', '[class*="cmp" i]',
  '[id*="privacy" i]', '[class*="privacy" i]', 'ytd-consent-bump-v2-lightbox', 'tp-yt-paper-dialog',
].join(', ');

/** "Accept" buttons of widespread consent platforms (CMPs), by their stable ids/classes. */
export const CMP_ACCEPT_SELECTORS = [
  '#onetrust-accept-btn-handler', // OneTrust
  '#accept-recommended-btn-handler',
  '.fc-cta-consent', // Google Funding Choices
  '#L2AGLb', // google.com consent
  'form[action*="consent.youtube.com"] button[aria-label^="Accept" i]', // consent.youtube.com
  'ytd-consent-bump-v2-lightbox button[aria-label^="Accept" i]',
  '#didomi-notice-agree-button', // Didomi
  '.qc-cmp2-summary-buttons button[mode="primary"]', // Quantcast
  '#truste-consent-button', // TrustArc
  '#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll', // Cookiebot
  '#CybotCookiebotDialogBodyButtonAccept',
  '.osano-cm-accept-all', // Osano
  '[data-testid="uc-accept-all-button"]', // Usercentrics (shadow DOM: Playwright's CSS pierces it)
  'button.sp_choice_type_11', // Sourcepoint "accept all"
  '[data-a-target="consent-banner-accept"]', // Twitch
  '.cky-btn-accept', // CookieYes
  '.cc-allow', // cookieconsent
  '#cookie_action_close_header', // GDPR Cookie Consent (WordPress)
  'button[data-cookiebanner="accept_button"]',
  '.iubenda-cs-accept-btn', // iubenda
  '#axeptio_btn_acceptAll', // Axeptio
  '.cmpboxbtnyes', // consentmanager.net
].join(', ');

/** Frames worth a full search for a plain "Accept": CMP iframes. */
const CONSENT_FRAME_URL = /consent|cmp|privacy-mgmt|sourcepoint|sp-prod|cookielaw|onetrust|trustarc|didomi|quantcast|usercentrics|cookiebot|privacymanager/i;

export interface ConsentOptions {
  /** Extra accessible names of the site's accept button, tried first. */
  buttons?: Array<string | RegExp>;
  /** Extra CSS selectors of the site's accept button, tried first. */
  selectors?: string[];
  /** How long to wait for a dialog to appear (default 6 s); 0 = look once. */
  timeoutMs?: number;
  log?: (msg: string) => void;
  signal?: AbortSignal;
}

export interface ConsentResult {
  /** Dialogs clicked through (a second, nested one is followed up once). */
  clicked: number;
  /** What was clicked, e.g. 'selector in https://cmp.example/...' (for the run log). */
  via: string[];
}

function exactName(s: string | RegExp): RegExp {
  if (s instanceof RegExp) return s;
  // A user's string is matched literally (escaped), as the whole accessible name.
  return new RegExp(`^\\s*${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'i');
}

function consentCandidates(frame: Frame, opts: ConsentOptions): Array<{ loc: Locator; label: string }> {
  const out: Array<{ loc: Locator; label: string }> = [];
  const byName = (root: Frame | Locator, name: RegExp) =>
    root.getByRole('button', { name }).or(root.getByRole('link', { name }));
  for (const b of opts.buttons ?? []) out.push({ loc: byName(frame, exactName(b)), label: `button "${String(b)}"` });
  for (const s of opts.selectors ?? []) out.push({ loc: frame.locator(s), label: `selector ${s}` });
  out.push({ loc: frame.locator(CMP_ACCEPT_SELECTORS), label: 'CMP selector' });
  out.push({ loc: byName(frame, ACCEPT_ALL), label: '"accept all" button' });
  out.push({ loc: byName(frame.locator(CONSENT_CONTAINERS), ACCEPT), label: '"accept" button in a consent container' });
  // Only sub-frames: the page's own URL may well contain "consent" or "privacy".
  if (frame.parentFrame() && CONSENT_FRAME_URL.test(frame.url())) out.push({ loc: byName(frame, ACCEPT), label: '"accept" button in a CMP frame' });
  return out;
}

/** One pass over every frame: clicks the first visible accept button. */
async function consentPass(page: Page, opts: ConsentOptions): Promise<string | null> {
  if (page.isClosed()) return null;
  // Main frame first, then CMP-looking frames, then the rest.
  const frames = [...page.frames()].sort((a, b) =>
    Number(b === page.mainFrame()) - Number(a === page.mainFrame()) ||
    Number(CONSENT_FRAME_URL.test(b.url())) - Number(CONSENT_FRAME_URL.test(a.url())));
  for (const frame of frames) {
    if (frame.isDetached()) continue;
    for (const { loc, label } of consentCandidates(frame, opts)) {
      const first = loc.first();
      if (!(await visibleNow(first))) continue;
      try {
        await first.click({ timeout: 3_000 });
        return `${label} in ${frame === page.mainFrame() ? 'the page' : frame.url().slice(0, 120)}`;
      } catch {
        // not clickable after all: keep looking
      }
    }
  }
  return null;
}

/**
 * Accepts consent dialogs (cookie banners, CMP iframes, consent interstitials) if any
 * appear within `timeoutMs`. Tries site-specific names/selectors, well-known CMP buttons,
 * "Accept all" in ~25 languages anywhere, and a plain "Accept"/"OK" inside consent
 * containers and CMP iframes. Never fails when there is no dialog.
 */
export async function acceptConsent(page: Page, opts: ConsentOptions = {}): Promise<ConsentResult> {
  const result: ConsentResult = { clicked: 0, via: [] };
  const deadline = Date.now() + (opts.timeoutMs ?? 6_000);
  try {
    for (;;) {
      if (opts.signal?.aborted || page.isClosed()) break;
      const via = await consentPass(page, opts);
      if (via) {
        result.clicked++;
        result.via.push(via);
        opts.log?.(`consent: clicked ${via}`);
        if (result.clicked >= 2) break;
        // Some CMPs open a second layer (or reload the page): give it a moment, look once more.
        await sleep(1_000, opts.signal);
        const again = await consentPass(page, opts);
        if (again) {
          result.clicked++;
          result.via.push(again);
          opts.log?.(`consent: clicked ${again}`);
        }
        break;
      }
      if (Date.now() >= deadline) break;
      await sleep(500, opts.signal);
    }
  } catch (err) {
    opts.log?.(`consent: gave up (${errText(err)})`);
  }
  return result;
}

const CLOSE_NAMES = /^\s*(close|dismiss|no,? thanks|not now|maybe later|skip|skip trial|schließen|nein,? danke|fermer|non merci|cerrar|no, gracias|chiudi|no, grazie|sluiten|fechar|zamknij|stäng|luk|lukk|sulje|закрыть|閉じる|닫기|关闭|×|✕|✖|x)\s*$/i;

/**
 * Closes what stands between the user and the content: Escape, then close/dismiss
 * buttons inside dialogs. Returns how many it clicked. Never throws.
 */
export async function dismissPopups(page: Page, opts: { log?: (msg: string) => void } = {}): Promise<number> {
  let clicked = 0;
  try {
    if (page.isClosed()) return 0;
    await page.keyboard.press('Escape').catch(() => undefined);
    const dialogs = page.locator('[role="dialog"], [role="alertdialog"], [aria-modal="true"]');
    const buttons = dialogs.getByRole('button', { name: CLOSE_NAMES });
    const n = Math.min(await buttons.count().catch(() => 0), 5);
    for (let i = 0; i < n; i++) {
      const b = buttons.nth(i);
      if (!(await visibleNow(b))) continue;
      if (await b.click({ timeout: 2_000 }).then(() => true, () => false)) clicked++;
    }
    if (clicked) opts.log?.(`pop-ups: closed ${clicked}`);
  } catch {
    // page went away: nothing to dismiss
  }
  return clicked;
}
