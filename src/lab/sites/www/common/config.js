// Lab configuration for the pages: /config.json from the page's own origin, then query
// parameters on top, so a test or the lab session can point a page at another origin
// without rebuilding anything.
export async function loadConfig() {
  let cfg = {};
  try {
    const r = await fetch('/config.json', { cache: 'no-store' });
    if (r.ok) cfg = await r.json();
  } catch {
    // no config.json: query parameters must supply everything
  }
  const q = new URLSearchParams(location.search);
  return {
    get(key, queryName = key) {
      const v = q.get(queryName);
      return v !== null ? v : cfg[key];
    },
    query: q,
  };
}

// The status object every lab page exposes for tests and the session (window.__ccb).
export function createStatus(kind, extra = {}) {
  const status = { kind, state: 'loading', errors: [], ...extra };
  window.__ccb = status;
  addEventListener('error', (e) => status.errors.push(String(e.message || e.type)));
  addEventListener('unhandledrejection', (e) => status.errors.push(String(e.reason && e.reason.message ? e.reason.message : e.reason)));
  return status;
}

// Renders the status object into an element, so screenshots show what the page is doing.
export function showStatus(el, status) {
  const render = () => {
    const s = { ...status };
    for (const k of Object.keys(s)) if (typeof s[k] === 'number' && !Number.isInteger(s[k])) s[k] = Math.round(s[k] * 100) / 100;
    el.textContent = JSON.stringify(s, null, 1);
  };
  render();
  setInterval(render, 500);
}

// Thumbnails from the images origin (a third origin on media pages).
export function showThumbs(ul, imagesBase, count = 6) {
  if (!imagesBase) return;
  for (let i = 1; i <= count; i++) {
    const li = document.createElement('li');
    const img = document.createElement('img');
    img.src = new URL(`thumb-${String(i).padStart(2, '0')}.png`, imagesBase).href;
    img.alt = `related ${i}`;
    li.append(img);
    ul.append(li);
  }
}
