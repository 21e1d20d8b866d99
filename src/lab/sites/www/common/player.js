// A small MSE player for the lab's JSON manifests (VOD, live, audio-only). Plain JS, no
// libraries: fetch manifest -> MediaSource -> one SourceBuffer per media type, fed segment
// by segment up to a buffer goal, with a throughput-based bitrate choice for video. That
// is the traffic shape real players make (bursts to fill a buffer, then one segment per
// segment duration), which is what the congestion-control measurements need.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function once(target, event) {
  return new Promise((resolve) => target.addEventListener(event, resolve, { once: true }));
}

async function fetchJson(url) {
  const r = await fetch(url, { cache: 'no-store' });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.json();
}

async function fetchBytes(url) {
  const t0 = performance.now();
  const r = await fetch(url, { cache: 'no-store' });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  const buf = await r.arrayBuffer();
  return { buf, seconds: Math.max((performance.now() - t0) / 1000, 0.001) };
}

async function append(sb, buf) {
  if (sb.updating) await once(sb, 'updateend');
  await new Promise((resolve, reject) => {
    sb.addEventListener('updateend', resolve, { once: true });
    sb.addEventListener('error', () => reject(new Error('SourceBuffer append failed')), { once: true });
    sb.appendBuffer(buf);
  });
}

async function removeRange(sb, start, end) {
  if (sb.updating) await once(sb, 'updateend');
  sb.remove(start, end);
  await once(sb, 'updateend');
}

// Which media segment comes next, for VOD (optionally looping) and for live.
class Timeline {
  constructor(manifest, loop) {
    this.loop = loop;
    this.update(manifest);
  }

  update(manifest) {
    this.manifest = manifest;
    this.live = manifest.type === 'live';
  }

  firstSeq() {
    if (!this.live) return 0;
    const w = this.manifest.window;
    // Start three segments behind the live edge, as live players do.
    return Math.max(w[0].seq, this.manifest.liveEdgeSeq - 2);
  }

  // -> { index, offset } | { skipTo } | 'wait' | 'end'
  entry(seq, track) {
    const m = this.manifest;
    if (this.live) {
      const w = m.window;
      if (seq < w[0].seq) return { skipTo: w[0].seq };
      if (seq > w[w.length - 1].seq) return 'wait';
      const e = w[seq - w[0].seq];
      return { index: e.index, offset: e.offset };
    }
    if (this.loop) {
      const count = Math.min(...[...m.video, ...m.audio].map((t) => t.segments.length));
      return { index: seq % count, offset: Math.floor(seq / count) * count * m.segmentDuration };
    }
    return seq < track.segments.length ? { index: seq, offset: 0 } : 'end';
  }
}

export async function startPlayer({ media, manifestUrl, status, audioOnly = false, loop = false, fixedRendition = null, bufferGoalSec = 12 }) {
  const base = new URL(manifestUrl, location.href);
  const manifest = await fetchJson(base.href);
  const timeline = new Timeline(manifest, loop);
  Object.assign(status, { manifestUrl: base.href, live: timeline.live, segments: 0, bytes: 0, throughputKbps: 0, currentTime: 0, bufferedSec: 0, manifestFetches: 1 });
  if (timeline.live) status.liveEdgeSeq = manifest.liveEdgeSeq;

  const ms = new MediaSource();
  media.src = URL.createObjectURL(ms);
  await once(ms, 'sourceopen');
  if (!timeline.live && !loop) ms.duration = manifest.duration;

  let estimateBps = 0;
  const feeders = [];
  if (!audioOnly && manifest.video.length) feeders.push({ kind: 'video', tracks: manifest.video });
  feeders.push({ kind: 'audio', tracks: manifest.audio.slice(0, 1) });
  for (const f of feeders) {
    const t = f.tracks[0];
    f.sb = ms.addSourceBuffer(`${f.kind}/mp4; codecs="${t.codecs}"`);
    f.track = null;
    f.codecs = t.codecs;
    f.nextSeq = timeline.firstSeq();
    f.appended = 0;
    f.done = false;
  }

  function chooseTrack(f) {
    if (f.kind !== 'video') return f.tracks[0];
    if (fixedRendition) return f.tracks.find((t) => t.id === fixedRendition) || f.tracks[0];
    let best = f.tracks[0];
    for (const t of f.tracks) if (estimateBps && t.bandwidth <= 0.7 * estimateBps) best = t;
    return best;
  }

  // Seconds buffered ahead of the playhead (before playback starts: everything buffered).
  function ahead(f) {
    const b = f.sb.buffered;
    const t = media.currentTime;
    for (let i = 0; i < b.length; i++) if (b.start(i) <= t + 0.5 && b.end(i) > t) return b.end(i) - t;
    if (!started) {
      let sum = 0;
      for (let i = 0; i < b.length; i++) sum += b.end(i) - b.start(i);
      return sum;
    }
    return 0;
  }

  let started = false;
  async function maybeStart() {
    if (started || feeders.some((f) => f.appended === 0)) return;
    started = true;
    // Live timestamps are seconds since the lab epoch: jump to where the data is.
    const starts = feeders.map((f) => (f.sb.buffered.length ? f.sb.buffered.start(0) : 0));
    const at = Math.max(...starts);
    if (media.currentTime < at) media.currentTime = at + 0.05;
    try {
      await media.play();
    } catch (e) {
      status.errors.push(`play(): ${e.message}`);
    }
  }

  async function maybeEnd() {
    if (feeders.every((f) => f.done) && ms.readyState === 'open') {
      for (const f of feeders) if (f.sb.updating) await once(f.sb, 'updateend');
      ms.endOfStream();
    }
  }

  async function feed(f) {
    for (;;) {
      if (ahead(f) >= bufferGoalSec) {
        await sleep(250);
        continue;
      }
      const e = timeline.entry(f.nextSeq, f.track || f.tracks[0]);
      if (e === 'end') {
        f.done = true;
        await maybeEnd();
        return;
      }
      if (e === 'wait') {
        await sleep(250);
        continue;
      }
      if (e.skipTo !== undefined) {
        f.nextSeq = e.skipTo;
        continue;
      }
      const want = chooseTrack(f);
      if (want !== f.track) {
        if (want.codecs !== f.codecs && f.sb.changeType) {
          if (f.sb.updating) await once(f.sb, 'updateend');
          f.sb.changeType(`${f.kind}/mp4; codecs="${want.codecs}"`);
          f.codecs = want.codecs;
        }
        const init = await fetchBytes(new URL(want.init, base).href);
        await append(f.sb, init.buf);
        f.track = want;
      }
      if (f.sb.updating) await once(f.sb, 'updateend');
      if (f.sb.timestampOffset !== e.offset) f.sb.timestampOffset = e.offset;
      const seg = await fetchBytes(new URL(want.segments[e.index], base).href);
      if (f.kind === 'video' || audioOnly) {
        const bps = (seg.buf.byteLength * 8) / seg.seconds;
        estimateBps = estimateBps ? 0.6 * estimateBps + 0.4 * bps : bps;
        status.throughputKbps = Math.round(estimateBps / 1000);
      }
      await append(f.sb, seg.buf);
      status.segments++;
      status.bytes += seg.buf.byteLength;
      f.appended++;
      f.nextSeq++;
      await maybeStart();
      // Keep memory bounded on long (live or looping) sessions.
      const b = f.sb.buffered;
      if (b.length && media.currentTime - b.start(0) > 40) await removeRange(f.sb, b.start(0), media.currentTime - 20);
    }
  }

  async function refreshLive() {
    const periodMs = (manifest.segmentDuration * 1000) / 2;
    for (;;) {
      await sleep(periodMs);
      try {
        const m = await fetchJson(base.href);
        timeline.update(m);
        status.manifestFetches++;
        status.liveEdgeSeq = m.liveEdgeSeq;
      } catch (e) {
        status.errors.push(`manifest: ${e.message}`);
      }
    }
  }

  // Report, and step over small gaps (e.g. at a loop boundary) that would stall playback.
  let lastTime = -1;
  let stalledTicks = 0;
  let failed = false;
  setInterval(() => {
    const t = media.currentTime;
    status.currentTime = t;
    status.paused = media.paused;
    status.bufferedSec = Math.round(ahead(feeders[0]) * 100) / 100;
    status.rendition = feeders[0].track ? feeders[0].track.id : null;
    if (media.error) status.mediaError = `${media.error.code}: ${media.error.message}`;
    status.state = failed || media.error ? 'error' : media.ended ? 'ended' : t > lastTime && started ? 'playing' : started ? 'stalled' : 'loading';
    stalledTicks = status.state === 'stalled' && !media.paused ? stalledTicks + 1 : 0;
    if (stalledTicks >= 4) {
      const b = feeders[0].sb.buffered;
      for (let i = 0; i < b.length; i++) {
        if (b.start(i) > t && b.start(i) - t < 3) {
          media.currentTime = b.start(i) + 0.01;
          break;
        }
      }
      stalledTicks = 0;
    }
    lastTime = t;
  }, 250);

  for (const f of feeders) {
    feed(f).catch((e) => {
      status.errors.push(`${f.kind}: ${e.message}`);
      failed = true;
    });
  }
  if (timeline.live) refreshLive();
}
